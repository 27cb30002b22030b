/**
 * The render layer: the plan picture (mermaid -> PNG with a warm Chromium)
 * and the cards (quiz, ask, explain, assessment, answered) as Discord and
 * Slack JSON within every platform limit. Imports core only (plus its
 * libraries and types-only platform packages).
 */

export type { NodeMastery, PlanMastery } from "../core/mastery.ts";
export {
	type DiscordActionRow,
	type DiscordMessage,
	escapeDiscordMarkdown,
	toDiscordMessages,
} from "./cards/discord.ts";
export { discordAnswerModal } from "./cards/discord-modal.ts";
export {
	type AnsweredEvent,
	answeredCard,
	cardFromEvent,
} from "./cards/from-event.ts";
export { ANSWER_MAX_CHARS, DISCORD_LIMITS, SLACK_LIMITS } from "./cards/limits.ts";
export type {
	AnsweredCard,
	AssessmentCard,
	Card,
	CardChoice,
	ExplainCard,
	QuestionCard,
	TextCard,
} from "./cards/model.ts";
export { choiceLetter } from "./cards/model.ts";
export { type SlackMessage, toSlackMessages } from "./cards/slack.ts";
export { slackAnswerModal } from "./cards/slack-modal.ts";
export { CHROMIUM_FIX, DEFAULT_CHROMIUM_PATH, RenderError } from "./chromium.ts";
export {
	COMPONENT_ID_MAX_CHARS,
	type ComponentId,
	ComponentIdError,
	type ComponentVerb,
	decodeComponentId,
	encodeComponentId,
} from "./component-id.ts";
export { escapeMrkdwn, markdownToMrkdwn } from "./markdown.ts";
export { PLAN_ALT_MAX_CHARS, planAltText } from "./plan-alt.ts";
export {
	createPlanRenderer,
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
export { splitMessage } from "./split-message.ts";
