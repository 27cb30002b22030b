/**
 * The render layer: the plan picture (mermaid -> PNG with a warm Chromium)
 * and the cards (quiz, ask, explain, assessment, answered) as Discord and
 * Slack JSON within every platform limit. Imports core only (plus its
 * libraries and types-only platform packages).
 */

export type { NodeMastery, PlanMastery } from "../core/mastery.ts";
export { type DiscordMessage, discordPictureMessage, toDiscordMessages } from "./cards/discord.ts";
export { discordAnswerModal } from "./cards/discord-modal.ts";
export {
	ACCENT,
	countComponents,
	DISCORD_V2_LIMITS,
	discordMessageText,
	IS_COMPONENTS_V2,
	withoutAttachments,
} from "./cards/discord-v2.ts";
export { type AnsweredEvent, answeredCard, cardFromEvent } from "./cards/from-event.ts";
export { answerOutcome } from "./cards/layout.ts";
export { DISCORD_LIMITS, SLACK_LIMITS } from "./cards/limits.ts";
export type { AnsweredCard, AssessmentCard, Card, ExplainCard, QuestionCard, TextCard } from "./cards/model.ts";
export { choiceLetter, displayName } from "./cards/model.ts";
export { type SlackMessage, toSlackMessages } from "./cards/slack.ts";
export { HOME_TOPICS, type HomeContent, slackHomeView } from "./cards/slack-home.ts";
export { slackAnswerModal } from "./cards/slack-modal.ts";
export { SLACK_STREAM_CHUNK_CHARS, toSlackStream } from "./cards/slack-stream.ts";
export { tallyCard } from "./cards/tally.ts";
export { DEFAULT_CHROMIUM_PATH, RenderError } from "./chromium.ts";
export { longCodeToFiles } from "./code-files.ts";
export {
	COMPONENT_ID_MAX_CHARS,
	type ComponentId,
	ComponentIdError,
	carriesControlsOf,
	decodeComponentId,
	encodeComponentId,
} from "./component-id.ts";
export { escapeMrkdwn, markdownToMrkdwn } from "./markdown.ts";
export { findMath, MATH_MAX_CHARS } from "./math/find-math.ts";
export { mathAsCode, prepareCard, texCodeSpan } from "./math/prepare.ts";
export { createMathRenderer, type MathRenderer, type MathResult } from "./math/renderer.ts";
export { texToSvg } from "./math/typeset.ts";
export { PLAN_ALT_MAX_CHARS, planAltText } from "./plan-alt.ts";
export { createPlanRenderer, PLAN_MAX_WIDTH_PX, type PlanPicture, type PlanRenderer } from "./plan-image.ts";
export {
	planCaption,
	planMermaidSource,
	planOutline,
	planPictureKey,
} from "./plan-source.ts";
export { contrastRatio, PLAN_BACKGROUNDS, PLAN_COLORS, PLAN_EDGE_COLOR, planLegendItems } from "./plan-style.ts";
export { type ProgressData, type ProgressTopic, renderProgressPng } from "./progress-image.ts";
export { splitMessage } from "./split-message.ts";
export { TABLE_MAX_WIDTH, tablesToCode } from "./tables.ts";
