// @ts-check
/**
 * ChatView front end for agui_notebook: an anywidget module (AFM, `export default { render }`).
 *
 * The entry of the bundle. anywidget loads ONE ES module as a blob (relative imports do not work
 * there) and the project works offline (no CDN), so `npm run build` (esbuild) bundles these rooms
 * into agui_notebook/static/chat.js, which is committed; docs/architecture.md lists the rooms.
 * Plain DOM + JSDoc types, type-checked with `tsc -p js/jsconfig.json`. Contract:
 * docs/widget-protocol.md.
 *
 * Security: everything in `items`, `state` and `audit` is untrusted text. The front end only builds
 * DOM with createElement + textContent; it never uses innerHTML & co, and never sets href, src,
 * style or on* attributes (the `h()` helper refuses them). Data only ever lands in text nodes,
 * form control values, aria-label and data-* attributes. The only `src` is an inline image's
 * `data:` URL of an allow-listed raster type, checked in image.js (content parts) or
 * a2ui-components.js (A2UI Image).
 *
 * Stable hooks for browser tests (classes / attributes)
 * ------------------------------------------------------
 * Root                      .agui-chat[data-agui-theme=light|dark][data-agui-contrast=more|normal]
 * Run status header         .agui-status[data-status=idle|running|waiting|sending|error]
 *                           (.agui-spinner while running/sending)
 * Item list                 .agui-items > .agui-page (the top-level items, 32 to a page: item i
 *                           is in page floor(i / 32), unless in a subagent group); each item
 *                           .agui-item[data-kind=...][data-item-id=...]
 *   user                    .agui-user
 *   assistant               .agui-assistant (+ .agui-streaming while streaming)
 *   reasoning               details.agui-reasoning (collapsed by default); .agui-encrypted note
 *                           and .agui-encrypted-mark in the summary when an encrypted value is kept
 *   tool                    .agui-tool[data-status]; .agui-tool-name, .agui-badge[data-status],
 *                           .agui-args (value tree or .agui-args-text), .agui-result,
 *                           .agui-encrypted (an encrypted value kept for the agent)
 *   content parts           .agui-result > .agui-parts > .agui-part[data-type=text|image|file|unknown]:
 *                           figure.agui-part-image > img.agui-part-img (src: data: URL built from
 *                           checked inline base64 only) + figcaption; .agui-part-file[data-kind]
 *                           (one line); details.agui-part-meta (metadata, collapsed)
 *   subagent                .agui-subagent[data-status=running|done|suspended|error|unannounced]
 *                           > details.agui-subagent-details (open) > summary.agui-subagent-head
 *                           (.agui-subagent-name, .agui-badge, .agui-subagent-description,
 *                           .agui-subagent-count), .agui-subagent-error, .agui-subagent-parent,
 *                           .agui-subagent-items (the group's items, nested groups included)
 *   run-end                 .agui-run-end[data-outcome] (.agui-run-end-head, .agui-usage,
 *                           li.agui-usage-entry, details.agui-run-end-value)
 *   card                    .agui-card[data-status=pending|sending|done|failed][data-card-id]
 *                           (data-status is the *effective* status: "sending" as soon as a click
 *                           was sent, before Python reports it)
 *   error                   .agui-error-item (.agui-error-title, .agui-error message, .agui-hint)
 *   notice                  .agui-notice
 *   unknown kind            .agui-unknown (shown as JSON text, never dropped)
 *   activity                .agui-activity[data-renderer=tree|checklist|search][data-activity-type]
 *                           (.agui-checklist-item[data-state=done|active|failed|pending],
 *                           .agui-checklist-count, .agui-search-query, .agui-search-count)
 *   a2ui                    .agui-a2ui > .agui-a2ui-surface[data-surface-id][data-action-status]
 *                           (.agui-a2ui-lifecycle, .agui-a2ui-action, .agui-a2ui-note,
 *                           button[data-action=a2ui-retry]); each component
 *                           .agui-a2[data-component=<type>][data-component-id]; a button that
 *                           sends an action: button[data-action=<action name>]
 * Inside a card
 *   one per interrupt       .agui-interrupt[data-interrupt-id][data-mode=tool|form|free]
 *                           (+ .agui-expired once its expiresAt has passed)
 *   content                 .agui-tool-name, .agui-message, .agui-args, .agui-reissued,
 *                           .agui-asked-by ("Asked by subagent <name>"), .agui-review (under review)
 *   buttons                 button[data-action=approve|reject|edit|cancel|answer|edit-send|send|retry]
 *                           approve/reject/edit/cancel: per interrupt (tool mode)
 *                           answer: submit of a form / free answer
 *                           edit-send: submit of the edit form (sends, or records on multi cards)
 *                           send: "Send decisions" (cards with several interrupts)
 *                           retry: after status "failed"
 *   reason box              textarea.agui-reason (when canGiveReason)
 *   always allow            input[type=checkbox].agui-always-allow (tool interrupts)
 *   edit form               .agui-edit > (.agui-form | textarea.agui-json), .agui-diff,
 *                           ul.agui-form-errors.agui-error
 *   answer form             .agui-answer-form > (.agui-form | textarea.agui-free), ...
 *   form fields             .agui-field[data-path], .agui-field-error (.agui-error)
 *   countdowns              .agui-countdown.agui-expiry (aria-live=polite),
 *                           .agui-countdown.agui-timeout (timeoutAt/timeoutDefault)
 *   multi-card choice       .agui-choice; recorded decision (done/failed): .agui-decision
 *   card status line        .agui-card-status ("sending…", "done", "failed", "1 of 2 decided")
 *   errors                  .agui-error.agui-card-error (status failed), .agui-error.agui-ack-error
 *   late click              .agui-late (role=status): a click that came after the card was decided
 *   note                    .agui-note
 * Collapsed sections        details.agui-state, details.agui-audit (table.agui-audit-table)
 * Value trees               .agui-tree, table.agui-kv; clipped text .agui-longtext with
 *                           .agui-clip-note ("… N more characters hidden") and button.agui-more
 *
 * Messages JS -> Python (model.send; never trait writes: a trait write while a cell awaits
 * desynchronises ipywidgets' throttle on ipykernel 7.4, see docs/widget-protocol.md)
 *   {type: "decide", requestId, card, decisions: {interruptId: {action, reason?, args?, payload?}},
 *    alwaysAllow?: [toolName]}     alwaysAllow only lists tools whose decision is approve or edit
 *   {type: "retry", requestId, card}
 *   {type: "a2ui-action", requestId, surfaceId, seq, action: {name, surfaceId, sourceComponentId,
 *    timestamp, context}}       a surface's button (A2UI v0.9 userAction)
 *   {type: "a2ui-retry", requestId, surfaceId, seq}
 * Messages Python -> JS (msg:custom)
 *   {type: "ack", requestId, accepted, error?, late?}  late: the click came after the card was
 *                                    decided; error then says what happened, in plain words
 */

import { render } from "./view.js";

export default { render };
