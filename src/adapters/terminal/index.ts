/**
 * The terminal adapter: a lesson in the terminal (the playground), through the
 * same engine and cards as Discord and Slack.
 */

export { createStyler, type FormatOptions, formatCard, formatMarkdown, type Styler } from "./format.ts";
export {
	type Answer,
	type AnswerSource,
	createLineSource,
	createPromptSource,
	type PlaygroundCommand,
	parseChoice,
	parseCommand,
} from "./input.ts";
export { PlanPictures, renderPlanForTerminal } from "./plan-pictures.ts";
export { OPEN_QUESTIONS_KEY, type PlaygroundOptions, type PlaygroundResult, runPlayground } from "./playground.ts";
