// @ts-check
/**
 * Types shared by the rooms of the front end (JSDoc only; this module exports no values).
 */

/**
 * @typedef {{
 *   get(name: string): any,
 *   on(event: string, callback: (...args: any[]) => void): void,
 *   off(event?: string | null, callback?: ((...args: any[]) => void) | null): void,
 *   send(content: any, callbacks?: any, buffers?: any[]): void,
 *   widget_manager?: {get_model(id: string): Promise<Model>},
 * }} Model
 */
/** @typedef {"approve" | "reject" | "edit" | "cancel" | "answer"} Action */
/** @typedef {{action: Action, reason?: string, args?: unknown, payload?: unknown, override?: string}} Decision */
/** @typedef {{path: string, message: string}} Problem */
/** @typedef {{expanded: Set<string>}} TreeState */
/** @typedef {{node: HTMLElement, kind: string, update(item: any): void, destroy(): void}} Entry */
/** @typedef {{value: unknown, omit: boolean, problems: Problem[]}} Reading */
/** @typedef {{node: HTMLElement, read(): Reading}} Field */
/**
 * @typedef {{
 *   ticker: Ticker,
 *   send(msg: {type: string, requestId: string, [k: string]: unknown}, owner: {handleAck(msg: any): void}): void,
 * }} Env
 */
/** @typedef {ReturnType<typeof import("./ticker.js").createTicker>} Ticker */

export {};
