/**
 * The terminal adapter: a lesson in the terminal (the playground), through the
 * same engine and cards as Discord and Slack.
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
export { PlanPictures, renderPlanForTerminal } from "./plan-pictures.ts";
export { type PlaygroundOptions, type PlaygroundResult, runPlayground } from "./playground.ts";
export { LessonProgress, OPEN_QUESTIONS_KEY, PROBE_COUNT_KEY } from "./progress.ts";
export { Screen } from "./screen.ts";
