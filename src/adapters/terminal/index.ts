/**
 * The terminal adapter: a lesson in the terminal (the playground), through the
 * same engine, lesson controller and cards as Discord and Slack (port.ts is its
 * platform port).
 */

export { createStyler, formatCard, formatMarkdown, type Styler, wrapText } from "./format.ts";
export { type Answer, createLineSource, createPromptSource, parseChoice, parseCommand } from "./input.ts";
export { runPlayground } from "./playground.ts";
export { runTerminalForget, runTerminalProgress, runTerminalReview } from "./profile-commands.ts";
export { decodeTerminalThreadId, encodeTerminalThreadId } from "./thread-id.ts";
