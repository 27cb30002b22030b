/**
 * The render layer: the plan picture (mermaid -> PNG with a warm Chromium)
 * and the cards (quiz, ask, explain, assessment, answered) as Discord and
 * Slack JSON within every platform limit. Imports core only (plus its
 * libraries and types-only platform packages).
 */

export type { NodeMastery, PlanMastery } from "../core/mastery.ts";
export {
	DISCORD_CODE_FILE_CHARS,
	type DiscordActionRow,
	type DiscordFile,
	type DiscordMessage,
	escapeDiscordMarkdown,
	toDiscordMessages,
} from "./cards/discord.ts";
export { discordAnswerModal } from "./cards/discord-modal.ts";
export {
	type AnsweredEvent,
	type AttemptEvent,
	answeredCard,
	attemptCard,
	cardFromEvent,
} from "./cards/from-event.ts";
export { type AnswerOutcome, answerOutcome } from "./cards/layout.ts";
export { ANSWER_MAX_CHARS, DISCORD_LIMITS, SLACK_LIMITS } from "./cards/limits.ts";
export type {
	AnsweredCard,
	AssessmentCard,
	Card,
	CardAttachment,
	CardChoice,
	ExplainCard,
	QuestionCard,
	TextCard,
} from "./cards/model.ts";
export { choiceLetter, displayName, HELP_LABELS } from "./cards/model.ts";
export {
	SLACK_CODE_FILE_CHARS,
	type SlackFileShare,
	type SlackImage,
	type SlackMessage,
	toSlackMessages,
} from "./cards/slack.ts";
export { slackAnswerModal } from "./cards/slack-modal.ts";
export { tallyCard } from "./cards/tally.ts";
export { CHROMIUM_FIX, DEFAULT_CHROMIUM_PATH, RenderError } from "./chromium.ts";
export { longCodeToFiles, snippetName } from "./code-files.ts";
export {
	COMPONENT_ID_MAX_CHARS,
	type ComponentId,
	ComponentIdError,
	type ComponentVerb,
	carriesControlsOf,
	decodeComponentId,
	encodeComponentId,
} from "./component-id.ts";
export { escapeMrkdwn, markdownToMrkdwn } from "./markdown.ts";
export { findMath, hasMath, MATH_MAX_CHARS, type MathSpan } from "./math/find-math.ts";
export { MATH_MAX_PICTURES, mathAsCode, prepareCard, texCodeSpan } from "./math/prepare.ts";
export {
	createMathRenderer,
	type MathRenderer,
	type MathRendererOptions,
	type MathRendererStats,
	type MathResult,
} from "./math/renderer.ts";
export { type MathPng, TexError, texToPng, texToSvg } from "./math/typeset.ts";
export { PLAN_ALT_MAX_CHARS, planAltText } from "./plan-alt.ts";
export {
	createPlanRenderer,
	DEFAULT_RENDER_PAGES,
	PLAN_MAX_WIDTH_PX,
	type PlanPicture,
	type PlanRenderer,
	type PlanRendererOptions,
	type PlanRendererStats,
} from "./plan-image.ts";
export {
	PLAN_COLORS,
	PLAN_CURRENT_FILL,
	planCaption,
	planMermaidSource,
	planOutline,
	planPictureKey,
} from "./plan-source.ts";
export {
	contrastRatio,
	PLAN_BACKGROUNDS,
	PLAN_EDGE_COLOR,
	PLAN_MARKS,
	type PlanNodeKind,
	planLegendItems,
	planLegendLine,
} from "./plan-style.ts";
export {
	MAX_TOPICS,
	type ProgressData,
	type ProgressTopic,
	progressSvg,
	renderProgressPng,
	TIMELINE_DAYS,
} from "./progress-image.ts";
export { splitMessage } from "./split-message.ts";
export { TABLE_CELL_MAX_CHARS, TABLE_MAX_WIDTH, tablesToCode } from "./tables.ts";
