/**
 * The terminal adapter: a lesson in the terminal (the playground), through the
 * same engine, lesson controller and cards as Discord and Slack (port.ts is its
 * platform port).
 */

export { createStyler, type FormatOptions, formatCard, formatMarkdown, type Styler, wrapText } from "./format.ts";
export {
	type Answer,
	type AnswerSource,
	createLineSource,
	createPromptSource,
	type PlaygroundCommand,
	parseChoice,
	parseCommand,
} from "./input.ts";
export { PlanPictures } from "./plan-pictures.ts";
export { type PlaygroundOptions, type PlaygroundResult, runPlayground } from "./playground.ts";
export { createTerminalPort, decodeTerminalThreadId, encodeTerminalThreadId, type TerminalPort } from "./port.ts";
export { runTerminalForget, runTerminalProgress, type TerminalProfileOptions } from "./profile-commands.ts";
export { runTerminalReview, type TerminalReviewOptions } from "./review.ts";
export { Screen } from "./screen.ts";
export { terminalCommunityOf } from "./thread-id.ts";
