// @ts-check
/**
 * Styles, scoped under .agui-chat: JupyterLab's variables, then VS Code's, then system colours.
 * Injected as one <style> element per view (no stylesheet URL: the module works offline).
 *
 * Error, success and warning text keep >= 4.5:1 (WCAG AA) on the page behind them: light pages
 * take the dark end of each colour family, dark ones (data-agui-theme="dark", set by theme.js)
 * the light end; JupyterLab's own middle shades (error-color1, success-color1, warn-color1) fail
 * AA on both. High contrast (VS Code's themes, prefers-contrast: more, forced-colors) drops the
 * muted greys and draws every border. tests/browser measures the ratios.
 *
 * A page of items off screen is neither styled, laid out nor painted (`content-visibility: auto`,
 * keeping its last height; list.js): a long transcript costs the pages on screen.
 */

export const CSS = `
.agui-chat {
  --agui-fg: var(--jp-ui-font-color1, var(--vscode-editor-foreground, CanvasText));
  --agui-fg0: var(--jp-ui-font-color0, var(--agui-fg));
  --agui-muted: var(--jp-ui-font-color2, var(--vscode-descriptionForeground, color-mix(in srgb, var(--agui-fg) 75%, transparent)));
  --agui-bg: var(--jp-layout-color0, transparent);
  --agui-bg1: var(--jp-layout-color1, color-mix(in srgb, var(--agui-fg) 3%, transparent));
  --agui-bg2: var(--jp-layout-color2, color-mix(in srgb, var(--agui-fg) 8%, transparent));
  --agui-border: var(--jp-border-color2, var(--vscode-panel-border, color-mix(in srgb, var(--agui-fg) 20%, transparent)));
  --agui-border1: var(--jp-border-color1, color-mix(in srgb, var(--agui-fg) 35%, transparent));
  --agui-brand: var(--jp-brand-color1, var(--vscode-focusBorder, #1976d2));
  --agui-link: var(--jp-content-link-color, var(--vscode-textLink-foreground, var(--agui-brand)));
  /* Not VS Code's errorForeground here: Light Modern's (#f85149) is 3.4:1 on white. */
  --agui-error: var(--jp-error-color0, #b71c1c);
  --agui-success: var(--jp-success-color0, #1b5e20);
  --agui-warn: #a14000;
  --agui-primary-bg: var(--jp-brand-color0, var(--vscode-button-background, #0d47a1));
  --agui-primary-fg: var(--vscode-button-foreground, #fff);
  --agui-danger-fg: var(--agui-error);
  --agui-font: var(--jp-ui-font-family, var(--vscode-font-family, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif));
  --agui-code: var(--jp-code-font-family, var(--vscode-editor-font-family, ui-monospace, SFMono-Regular, Menlo, Consolas, monospace));
  --agui-size: var(--jp-content-font-size1, 13px);
  font-family: var(--agui-font);
  font-size: var(--agui-size);
  line-height: 1.45;
  color: var(--agui-fg);
  background: var(--agui-bg);
  overflow-wrap: anywhere;
  display: flex;
  flex-direction: column;
  gap: 6px;
  max-width: 100%;
}
.agui-chat[data-agui-theme=dark] {
  --agui-error: var(--jp-error-color2, var(--vscode-errorForeground, #ef9a9a));
  --agui-success: var(--jp-success-color2, #81c784);
  --agui-warn: var(--jp-warn-color2, #ffb74d);
}
.agui-chat[data-agui-contrast=more] {
  --agui-muted: var(--agui-fg);
  --agui-border: var(--vscode-contrastBorder, var(--agui-fg));
  --agui-border1: var(--vscode-contrastBorder, var(--agui-fg));
}
.agui-chat[data-agui-contrast=more] .agui-btn.agui-primary { border-color: var(--agui-border1); }
.agui-chat *, .agui-chat *::before, .agui-chat *::after { box-sizing: border-box; }
.agui-chat [hidden] { display: none !important; }
.agui-chat .agui-pre, .agui-chat .agui-text { white-space: pre-wrap; }
.agui-chat .agui-hint, .agui-chat .agui-label, .agui-chat .agui-clip-note { color: var(--agui-muted); font-size: 0.9em; }
.agui-chat .agui-status { display: flex; align-items: center; gap: 6px; color: var(--agui-muted); font-size: 0.9em; }
.agui-chat .agui-status[data-status=waiting] { color: var(--agui-warn); }
.agui-chat .agui-status[data-status=error] { color: var(--agui-error); }
.agui-chat .agui-spinner {
  display: inline-block; width: 0.9em; height: 0.9em; border-radius: 50%;
  border: 2px solid currentColor; border-right-color: transparent;
  animation: agui-spin 0.8s linear infinite; vertical-align: -0.1em; margin-right: 4px;
}
@keyframes agui-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .agui-chat .agui-spinner { animation-duration: 3s; } }
.agui-chat .agui-items, .agui-chat .agui-page { display: flex; flex-direction: column; gap: 6px; }
.agui-chat .agui-page { content-visibility: auto; contain-intrinsic-block-size: auto 1200px; }
.agui-chat .agui-page:empty { display: none; }
.agui-chat .agui-item { padding: 6px 8px; border-radius: 4px; }
.agui-chat .agui-user { background: var(--agui-bg2); align-self: flex-end; max-width: 85%; }
.agui-chat .agui-role { font-size: 0.85em; color: var(--agui-muted); }
.agui-chat .agui-assistant { color: var(--agui-fg0); }
.agui-chat .agui-assistant.agui-streaming .agui-text::after { content: "▍"; opacity: 0.6; }
.agui-chat .agui-reasoning summary { cursor: pointer; color: var(--agui-muted); }
.agui-chat .agui-tool, .agui-chat .agui-card, .agui-chat .agui-unknown {
  border: 1px solid var(--agui-border); background: var(--agui-bg1);
}
.agui-chat .agui-tool-name { font-family: var(--agui-code); }
.agui-chat .agui-badge {
  display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 0.85em;
  border: 1px solid var(--agui-border1); color: var(--agui-muted);
}
.agui-chat .agui-badge[data-status=done] { color: var(--agui-success); border-color: var(--agui-success); }
.agui-chat .agui-badge[data-status=rejected], .agui-chat .agui-badge[data-status=cancelled] { color: var(--agui-error); border-color: var(--agui-error); }
.agui-chat .agui-badge[data-status=awaiting] { color: var(--agui-warn); border-color: var(--agui-warn); }
.agui-chat .agui-error, .agui-chat .agui-error-title { color: var(--agui-error); }
.agui-chat .agui-error-item { border: 1px solid var(--agui-error); }
.agui-chat .agui-notice { color: var(--agui-muted); font-style: italic; }
.agui-chat .agui-card { border-left: 3px solid var(--agui-warn); display: flex; flex-direction: column; gap: 6px; }
.agui-chat .agui-card[data-status=done] { border-left-color: var(--agui-success); }
.agui-chat .agui-card[data-status=failed] { border-left-color: var(--agui-error); }
.agui-chat .agui-card-head { display: flex; justify-content: space-between; gap: 8px; font-weight: 600; }
.agui-chat .agui-card-status { font-weight: normal; color: var(--agui-muted); }
.agui-chat .agui-interrupt { border-top: 1px dashed var(--agui-border); padding-top: 6px; display: flex; flex-direction: column; gap: 4px; }
.agui-chat .agui-interrupt:first-child { border-top: none; padding-top: 0; }
.agui-chat .agui-interrupt.agui-expired .agui-args { opacity: 0.6; }
.agui-chat .agui-countdown { font-variant-numeric: tabular-nums; color: var(--agui-warn); font-size: 0.9em; }
.agui-chat .agui-expired-text { color: var(--agui-error); }
.agui-chat .agui-decision { color: var(--agui-fg0); }
.agui-chat .agui-decision[data-action=approve], .agui-chat .agui-decision[data-action=edit], .agui-chat .agui-decision[data-action=answer] { color: var(--agui-success); }
.agui-chat .agui-decision[data-action=reject], .agui-chat .agui-decision[data-action=cancel] { color: var(--agui-error); }
.agui-chat .agui-note { color: var(--agui-muted); font-size: 0.9em; }
.agui-chat .agui-late { color: var(--agui-fg0); font-size: 0.9em; border-left: 3px solid var(--agui-warn); padding: 2px 6px; }
.agui-chat .agui-buttons { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin-top: 4px; }
.agui-chat .agui-btn {
  font: inherit; color: var(--agui-fg); background: var(--agui-bg2);
  border: 1px solid var(--agui-border1); border-radius: 3px; padding: 2px 10px; cursor: pointer;
}
.agui-chat .agui-btn:hover:not(:disabled) { border-color: var(--agui-brand); }
.agui-chat .agui-btn:disabled { opacity: 0.5; cursor: not-allowed; }
.agui-chat .agui-btn.agui-primary { background: var(--agui-primary-bg); border-color: var(--agui-primary-bg); color: var(--agui-primary-fg); }
.agui-chat .agui-btn.agui-danger { color: var(--agui-danger-fg); border-color: var(--agui-danger-fg); background: var(--agui-bg1); }
.agui-chat .agui-btn[aria-pressed=true] { box-shadow: inset 0 0 0 2px var(--agui-fg); }
.agui-chat .agui-btn.agui-link { background: none; border: none; padding: 0; color: var(--agui-link); text-decoration: underline; }
.agui-chat :is(button, input, select, textarea, summary):focus-visible { outline: 2px solid var(--agui-brand); outline-offset: 2px; }
.agui-chat .agui-field { display: flex; flex-direction: column; gap: 2px; margin: 2px 0; }
.agui-chat .agui-field-boolean { flex-direction: row; align-items: center; flex-wrap: wrap; }
.agui-chat .agui-fieldset, .agui-chat .agui-edit-fields { border: 1px solid var(--agui-border); border-radius: 3px; padding: 4px 8px; margin: 0; min-width: 0; }
.agui-chat .agui-edit-fields { border: none; padding: 0; }
.agui-chat .agui-input {
  font: inherit; color: var(--agui-fg); background: var(--agui-bg);
  border: 1px solid var(--agui-border1); border-radius: 3px; padding: 2px 4px; max-width: 100%;
}
.agui-chat .agui-json, .agui-chat textarea.agui-input { font-family: var(--agui-code); width: 100%; resize: vertical; }
.agui-chat .agui-input[aria-invalid=true] { border-color: var(--agui-error); }
.agui-chat .agui-required { color: var(--agui-error); }
.agui-chat .agui-form-errors { margin: 4px 0; padding-left: 1.2em; }
.agui-chat .agui-edit-slot { border: 1px solid var(--agui-border1); border-radius: 3px; padding: 6px 8px; margin-top: 4px; background: var(--agui-bg); }
.agui-chat .agui-diff { border: 1px solid var(--agui-border); border-radius: 3px; padding: 4px 8px; }
.agui-chat .agui-diff-title { font-weight: 600; }
.agui-chat .agui-diff-list { margin: 2px 0; padding-left: 1.2em; }
.agui-chat .agui-diff-old { color: var(--agui-error); }
.agui-chat .agui-diff-new { color: var(--agui-success); text-decoration: none; }
.agui-chat .agui-kv { border-collapse: collapse; font-size: 0.95em; }
.agui-chat .agui-kv th, .agui-chat .agui-kv td { text-align: left; vertical-align: top; padding: 1px 6px 1px 0; }
.agui-chat .agui-kv th { font-family: var(--agui-code); color: var(--agui-muted); font-weight: normal; white-space: nowrap; }
.agui-chat .agui-kv .agui-kv { border-left: 1px solid var(--agui-border); padding-left: 4px; }
.agui-chat .agui-v-number, .agui-chat .agui-v-boolean, .agui-chat .agui-v-null, .agui-chat .agui-v-json { font-family: var(--agui-code); }
.agui-chat .agui-v-string { white-space: pre-wrap; }
.agui-chat .agui-v-null, .agui-chat .agui-v-empty { color: var(--agui-muted); }
.agui-chat details > summary { cursor: pointer; }
.agui-chat .agui-state, .agui-chat .agui-audit { font-size: 0.9em; }
.agui-chat .agui-audit-table { border-collapse: collapse; }
.agui-chat .agui-audit-table th, .agui-chat .agui-audit-table td { border: 1px solid var(--agui-border); padding: 1px 4px; text-align: left; vertical-align: top; }
.agui-chat .agui-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
/* Content parts; encrypted values; subagent groups; run ends */
.agui-chat .agui-parts { display: flex; flex-direction: column; gap: 4px; }
.agui-chat .agui-part-image { margin: 0; }
.agui-chat .agui-part-img { display: block; max-width: 100%; max-height: 360px; border: 1px solid var(--agui-border); background: var(--agui-bg); }
.agui-chat .agui-part-caption { font-size: 0.9em; color: var(--agui-fg0); }
.agui-chat .agui-part-file { border-left: 2px solid var(--agui-border1); padding-left: 6px; }
.agui-chat .agui-part-meta, .agui-chat .agui-run-end-value { font-size: 0.9em; }
.agui-chat .agui-encrypted { font-style: italic; }
.agui-chat .agui-subagent { border: 1px solid var(--agui-border); border-left: 3px solid var(--agui-brand); padding: 4px 8px; }
.agui-chat .agui-subagent[data-status=error] { border-left-color: var(--agui-error); }
.agui-chat .agui-subagent[data-status=suspended] { border-left-color: var(--agui-warn); }
.agui-chat .agui-subagent-items { display: flex; flex-direction: column; gap: 6px; margin-top: 4px; }
.agui-chat .agui-badge[data-status=suspended] { color: var(--agui-warn); border-color: var(--agui-warn); }
.agui-chat .agui-badge[data-status=error] { color: var(--agui-error); border-color: var(--agui-error); }
.agui-chat .agui-asked-by { font-size: 0.9em; color: var(--agui-fg0); }
.agui-chat .agui-run-end { border-top: 1px dashed var(--agui-border); border-radius: 0; font-size: 0.9em; }
.agui-chat .agui-usage { color: var(--agui-fg0); font-variant-numeric: tabular-nums; }
.agui-chat .agui-usage-entries { margin: 2px 0; padding-left: 1.4em; color: var(--agui-muted); }
/* Activity messages */
.agui-chat .agui-activity { border: 1px solid var(--agui-border); background: var(--agui-bg1); }
.agui-chat .agui-activity-title { font-weight: 600; }
.agui-chat .agui-checklist-progress { width: 100%; max-width: 320px; height: 0.7em; }
.agui-chat .agui-checklist { margin: 4px 0; padding-left: 1.6em; }
.agui-chat .agui-checklist-item[data-state=done] .agui-checklist-mark { color: var(--agui-success); }
.agui-chat .agui-checklist-item[data-state=active] { font-weight: 600; }
.agui-chat .agui-checklist-item[data-state=active] .agui-checklist-mark { color: var(--agui-brand); }
.agui-chat .agui-checklist-item[data-state=failed] .agui-checklist-mark { color: var(--agui-error); }
.agui-chat .agui-checklist-item[data-state=pending] { color: var(--agui-muted); }
.agui-chat .agui-search-results { margin: 4px 0; padding-left: 1.6em; }
/* A2UI surfaces (no style comes from data: layout hints map to these classes) */
.agui-chat .agui-a2ui-surface { border: 1px solid var(--agui-border1); border-left: 3px solid var(--agui-brand); border-radius: 4px; padding: 6px 8px; background: var(--agui-bg1); display: flex; flex-direction: column; gap: 6px; }
.agui-chat .agui-a2ui-surface[data-action-status=done] { border-left-color: var(--agui-success); }
.agui-chat .agui-a2ui-surface[data-action-status=failed] { border-left-color: var(--agui-error); }
.agui-chat .agui-a2ui-head { font-size: 0.85em; }
.agui-chat .agui-a2-row, .agui-chat .agui-a2-list[data-direction=horizontal] { display: flex; flex-direction: row; flex-wrap: wrap; gap: 8px; align-items: stretch; }
.agui-chat .agui-a2-column, .agui-chat .agui-a2-list { display: flex; flex-direction: column; gap: 6px; }
.agui-chat [data-justify=center] { justify-content: center; }
.agui-chat [data-justify=end] { justify-content: flex-end; }
.agui-chat [data-justify=spaceBetween] { justify-content: space-between; }
.agui-chat [data-justify=spaceAround] { justify-content: space-around; }
.agui-chat [data-justify=spaceEvenly] { justify-content: space-evenly; }
.agui-chat [data-align=start] { align-items: flex-start; }
.agui-chat [data-align=center] { align-items: center; }
.agui-chat [data-align=end] { align-items: flex-end; }
.agui-chat .agui-a2-w1 { flex: 1 1 0; } .agui-chat .agui-a2-w2 { flex: 2 1 0; } .agui-chat .agui-a2-w3 { flex: 3 1 0; }
.agui-chat .agui-a2-w4 { flex: 4 1 0; } .agui-chat .agui-a2-w5 { flex: 5 1 0; }
.agui-chat .agui-a2-card { border: 1px solid var(--agui-border); border-radius: 4px; padding: 6px 8px; background: var(--agui-bg); }
.agui-chat .agui-a2-text[data-variant=h1] { font-size: 1.5em; font-weight: 600; }
.agui-chat .agui-a2-text[data-variant=h2] { font-size: 1.3em; font-weight: 600; }
.agui-chat .agui-a2-text[data-variant=h3] { font-size: 1.15em; font-weight: 600; }
.agui-chat .agui-a2-text:is([data-variant=h4], [data-variant=h5]) { font-weight: 600; }
.agui-chat .agui-a2-text[data-variant=caption] { font-size: 0.85em; color: var(--agui-muted); }
.agui-chat .agui-a2-divider { border: none; border-top: 1px solid var(--agui-border); margin: 4px 0; width: 100%; }
.agui-chat .agui-a2-divider.agui-a2-vertical { border-top: none; border-left: 1px solid var(--agui-border); width: auto; align-self: stretch; }
.agui-chat .agui-a2-image img { max-width: 100%; max-height: 320px; }
.agui-chat .agui-a2-tabbar { display: flex; gap: 4px; border-bottom: 1px solid var(--agui-border); }
.agui-chat .agui-a2-tab[aria-selected=true] { border-color: var(--agui-brand); font-weight: 600; }
.agui-chat .agui-a2-choices { border: 1px solid var(--agui-border); border-radius: 3px; padding: 4px 8px; margin: 0; display: flex; flex-direction: column; gap: 2px; }
.agui-chat .agui-a2-chips { flex-direction: row; flex-wrap: wrap; gap: 8px; }
.agui-chat .agui-a2-field { display: flex; flex-direction: column; gap: 2px; }
.agui-chat .agui-a2-checkbox { flex-direction: row; align-items: center; }
.agui-chat .agui-a2-modal-content { border: 1px solid var(--agui-border1); border-radius: 4px; padding: 6px 8px; margin-top: 4px; }
.agui-chat .agui-a2ui-action[data-status=failed], .agui-chat .agui-a2ui-action.agui-error { color: var(--agui-error); }
.agui-chat .agui-a2ui-problems { margin: 2px 0; padding-left: 1.2em; }
.agui-chat .agui-preview { margin: 6px 0; padding-left: 8px; border-left: 3px solid var(--agui-brand); }
.agui-chat .agui-preview-frame { display: block; width: 100%; height: 32px; border: 1px solid var(--agui-border); border-radius: 3px; background: #fff; }
.agui-chat .agui-preview-img { display: block; max-width: 100%; max-height: 480px; height: auto; }
.agui-chat .agui-preview-text { margin: 2px 0; font-family: var(--agui-code); white-space: pre; overflow: auto; max-height: 320px; }
.agui-chat .agui-preview-note, .agui-chat .agui-verdict-warning { color: var(--agui-warn); }
.agui-chat .agui-check-list { list-style: none; margin: 4px 0; padding: 0; }
.agui-chat .agui-check-mark { display: inline-block; width: 1.2em; }
.agui-chat .agui-check[data-passed=true] .agui-check-mark, .agui-chat .agui-verdict { color: var(--agui-success); }
.agui-chat .agui-check[data-passed=false], .agui-chat .agui-checks[data-passed=false] .agui-checks-summary { color: var(--agui-error); }
.agui-chat .agui-checks-summary { color: var(--agui-muted); }
.agui-chat .agui-verdict { margin-top: 4px; }
.agui-chat .agui-verdict-warning { font-weight: 600; }
@media (forced-colors: active) {
  .agui-chat { --agui-error: CanvasText; --agui-success: CanvasText; --agui-warn: CanvasText; --agui-muted: CanvasText; --agui-border: CanvasText; --agui-border1: CanvasText; }
  .agui-chat .agui-btn, .agui-chat .agui-btn.agui-primary, .agui-chat .agui-btn.agui-danger { color: ButtonText; background: ButtonFace; border: 1px solid ButtonText; }
  .agui-chat .agui-btn:disabled { color: GrayText; border-color: GrayText; opacity: 1; }
  .agui-chat .agui-btn[aria-pressed=true] { outline: 2px solid Highlight; outline-offset: 1px; }
  .agui-chat .agui-card, .agui-chat .agui-tool, .agui-chat .agui-error-item { border-color: CanvasText; }
}
`;
