/**
 * Card -> Discord REST message bodies (discord-api-types JSON). Text splits
 * into messages of at most 2000 characters; controls ride on the last one.
 * Buttons (at most 5, one row) for few choices, string selects (25 options
 * each, up to 5 rows) for more, an "Answer" button for free answers. The
 * answered state is always ONE message (it replaces the card that had the
 * controls) with the controls disabled. Mentions never ping.
 */

import {
	type APIActionRowComponent,
	type APIAllowedMentions,
	type APIButtonComponentWithCustomId,
	type APIComponentInMessageActionRow,
	type APISelectMenuOption,
	ButtonStyle,
	ComponentType,
} from "discord-api-types/v10";
import { HELP_KINDS, type HelpKind } from "../../core/struggle.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { longCodeToFiles } from "../code-files.ts";
import { encodeComponentId } from "../component-id.ts";
import { splitMessage } from "../split-message.ts";
import { tablesToCode } from "../tables.ts";
import {
	answerOutcome,
	type ChoiceLayout,
	choiceLabel,
	degradedNote,
	explainHeading,
	layoutChoices,
} from "./layout.ts";
import { closeFences, DISCORD_LIMITS as D, fitLine, fitMarkdown, fitText } from "./limits.ts";
import {
	type AnsweredCard,
	type AssessmentCard,
	type Card,
	type CardAttachment,
	type CardChoice,
	displayName,
	type ExplainCard,
	helpLabel,
	type QuestionCard,
	type TextCard,
} from "./model.ts";

/** The language of a card's own words. */
const loc = (card: { locale?: Locale }): Locale => card.locale ?? DEFAULT_LOCALE;

/** A Discord action row of buttons or a select. */
export type DiscordActionRow = APIActionRowComponent<APIComponentInMessageActionRow>;

/** A file a message uploads (multipart), named by one of its `attachments`. */
export interface DiscordFile {
	name: string;
	data: Buffer;
	contentType: string;
}

/** One Discord message: a REST create/edit body, plus the files its `attachments` name (send them multipart). */
export interface DiscordMessage {
	content: string;
	components?: DiscordActionRow[];
	/** Always `{ parse: [] }`: model text never pings anyone. */
	allowed_mentions: APIAllowedMentions;
	/** Attachment metadata: `description` is the alt text (a formula's TeX). */
	attachments?: Array<{ id: number; filename: string; description?: string }>;
	/** Not part of the JSON body: the bytes of each attachment, in the same order. */
	files?: DiscordFile[];
}

/** Most attachments on one Discord message; longest alt text. */
const MAX_ATTACHMENTS = 10;
const DESCRIPTION_CHARS = 1024;
/** Code blocks longer than this go as a file with a preview. */
export const DISCORD_CODE_FILE_CHARS = 1500;

const NO_MENTIONS: APIAllowedMentions = { parse: [] };

const CAPACITY = {
	maxButtons: D.buttonsPerRow,
	perSelect: D.selectOptions,
	maxSelects: D.rowsPerMessage,
	labelChars: D.buttonLabelChars,
};

/** Escapes Discord markdown in plain text we interpolate (names, one-line answers). */
export function escapeDiscordMarkdown(text: string): string {
	return text.replace(/([\\*_~`|>#[\]()-])/g, "\\$1");
}

function message(content: string, components?: DiscordActionRow[]): DiscordMessage {
	return components !== undefined && components.length > 0
		? { content, components, allowed_mentions: NO_MENTIONS }
		: { content, allowed_mentions: NO_MENTIONS };
}

/** Text as messages (tables aligned, long code as files); the last one carries the components and attachments. */
function messages(
	text: string,
	components?: DiscordActionRow[],
	pictures: readonly CardAttachment[] = [],
): DiscordMessage[] {
	const { text: shown, files } = longCodeToFiles(tablesToCode(text), DISCORD_CODE_FILE_CHARS);
	const chunks = splitMessage(shown, D.contentChars);
	if (chunks.length === 0) chunks.push("\u200b"); // components need a message; content must not be empty
	const out = chunks.map((chunk, i) => message(chunk, i === chunks.length - 1 ? components : undefined));
	const attached = [...pictures, ...files].slice(0, MAX_ATTACHMENTS);
	const last = out.at(-1);
	if (last !== undefined && attached.length > 0) {
		last.attachments = attached.map((a, id) => ({
			id,
			filename: a.filename,
			description: fitLine(a.kind === "image" ? a.alt : a.title, DESCRIPTION_CHARS),
		}));
		last.files = attached.map((a) => ({
			name: a.filename,
			data: a.data,
			contentType: a.kind === "image" ? "image/png" : "text/plain; charset=utf-8",
		}));
	}
	return out;
}

function choiceList(choices: readonly CardChoice[]): string {
	return choices.map((c) => `**${c.letter}.** ${c.text.trim()}`).join("\n");
}

function button(
	customId: string,
	label: string,
	style: APIButtonComponentWithCustomId["style"],
	disabled = false,
): APIButtonComponentWithCustomId {
	return {
		type: ComponentType.Button,
		custom_id: customId,
		label: fitLine(label, D.buttonLabelChars) || "…",
		style,
		...(disabled ? { disabled: true } : {}),
	};
}

function row(components: APIComponentInMessageActionRow[]): DiscordActionRow {
	return { type: ComponentType.ActionRow, components };
}

/** The help row of a question (Hint, Explain another way, Not sure; or Try again, Hint, Show answer), at most 5. */
function helpRow(card: QuestionCard): DiscordActionRow[] {
	const kinds = (card.help ?? []).slice(0, D.buttonsPerRow);
	if (kinds.length === 0) return [];
	const style = (kind: HelpKind) => (kind === "again" ? ButtonStyle.Primary : ButtonStyle.Secondary);
	const buttons = kinds.map((kind) =>
		button(
			encodeComponentId({ verb: "help", toolCallId: card.toolCallId, choice: HELP_KINDS.indexOf(kind) }),
			helpLabel(kind, loc(card)),
			style(kind),
		),
	);
	return [row(buttons)];
}

function questionControls(card: QuestionCard, layout: ChoiceLayout): DiscordActionRow[] {
	const c = layout.controls;
	// Component ids that do not fit leave the card without any control (the degraded form says what to do).
	if (c.type === "none" && c.reason === "ids") return [];
	// A missed check offers help only (Try again, Hint, Show answer); the choices stay in the text.
	if (card.struggle?.state === "missed") return helpRow(card);
	const rows = choiceControls(card, layout);
	// Five rows of selects (over 100 choices) leave no room: the choices win, help goes (typed replies still work).
	return rows.length < D.rowsPerMessage ? [...rows, ...helpRow(card)] : rows;
}

function choiceControls(card: QuestionCard, layout: ChoiceLayout): DiscordActionRow[] {
	const id = card.toolCallId;
	const c = layout.controls;
	if (c.type === "free")
		return [
			row([
				button(
					encodeComponentId({ verb: "open", toolCallId: id }),
					t(loc(card), "card.answerButton"),
					ButtonStyle.Primary,
				),
			]),
		];
	if (c.type === "buttons")
		return [
			row(
				card.choices.map((choice) =>
					button(
						encodeComponentId({ verb: "pick", toolCallId: id, choice: choice.index }),
						choiceLabel(choice, layout, D.buttonLabelChars),
						ButtonStyle.Secondary,
					),
				),
			),
		];
	if (c.type === "selects") {
		const rows: DiscordActionRow[] = [];
		for (let start = 0; start < card.choices.length; start += c.perSelect) {
			const slice = card.choices.slice(start, start + c.perSelect);
			const options: APISelectMenuOption[] = slice.map((choice) => ({
				label: choiceLabel(choice, layout, D.selectOptionLabelChars),
				value: String(choice.index),
				...(layout.inBody && choice.text.trim() !== ""
					? { description: fitLine(choice.text, D.selectOptionDescriptionChars) }
					: {}),
			}));
			const first = slice[0]?.letter ?? "";
			const last = slice.at(-1)?.letter ?? "";
			rows.push(
				row([
					{
						type: ComponentType.StringSelect,
						custom_id: encodeComponentId({ verb: "select", toolCallId: id, choice: start }),
						placeholder:
							card.choices.length > c.perSelect
								? t(loc(card), "card.chooseRange", { first, last })
								: t(loc(card), "card.choose"),
						min_values: 1,
						max_values: 1,
						options,
					},
				]),
			);
		}
		return rows;
	}
	return [];
}

/** A card's lead (tutor text above it), fences closed; "" when there is none. */
function leadText(lead: string | undefined): string {
	return typeof lead === "string" ? closeFences(lead.trim()) : "";
}

function questionMessages(card: QuestionCard): DiscordMessage[] {
	const missed = card.struggle?.state === "missed";
	const layout = layoutChoices(card.toolCallId, card.choices, CAPACITY, card.choicesPictured === true);
	const head = `**${card.heading}**${card.framing !== undefined ? ` · ${card.framing}` : ""}`;
	const parts = [leadText(card.lead), head, closeFences(card.question.trim())];
	if (layout.inBody || (missed && !card.choicesPictured && card.choices.length > 0))
		parts.push(choiceList(card.choices));
	if (layout.controls.type === "none" && !missed)
		parts.push(`_${degradedNote(layout.controls.reason, card.choices.length > 0, loc(card))}_`);
	return messages(parts.filter((p) => p !== "").join("\n\n"), questionControls(card, layout), card.attachments);
}

function resultLine(card: AnsweredCard): string {
	const locale = loc(card);
	const who = `**${escapeDiscordMarkdown(fitLine(displayName(card.by, locale), 40))}**`;
	if (card.skipped === true) return `⏭️ ${t(locale, "card.skipped", { who })}`;
	const chosen = card.chosenIndex !== undefined ? card.choices[card.chosenIndex] : undefined;
	const what = chosen !== undefined ? `${chosen.letter}. ${chosen.text}` : card.answer;
	const shown = `**${escapeDiscordMarkdown(fitLine(what, 120))}**`;
	if (card.checking === true) return `⏳ ${t(locale, "card.answeredChecking", { who, what: shown })}`;
	if (card.tie !== undefined && card.tie.length > 0) {
		const tied = card.tie.map((a) => `**${escapeDiscordMarkdown(fitLine(a, 60))}**`).join(" · ");
		return `⚖️ ${t(locale, "card.answeredTie", { who, what: tied })}`;
	}
	const { outcome, how } = answerOutcome(card);
	if (outcome === "not-sure") return `🤷 ${t(locale, "card.notSure", { who, how })}`;
	if (outcome === "explain-again") return `🔄 ${t(locale, "card.explainAgain", { who })}`;
	if (outcome === "prediction") return `🔮 ${t(locale, "card.prediction", { who, what: shown })}`;
	if (outcome === "correct")
		return `✅ ${t(locale, "card.answeredCorrect", { who, what: shown }).replace(/\.$/, "")}${how}.${reasonNote(card)}`;
	if (outcome === "shown") return `👀 ${t(locale, "card.shown", { who, how })}`;
	if (outcome === "wrong")
		return `❌ ${t(locale, "card.answeredWrong", { who, what: shown }).replace(/\.$/, "")}${how}.${reasonNote(card)}`;
	return `💬 ${t(locale, "card.answeredPlain", { who, what: shown })}${reasonNote(card)}`;
}

/** The grader's reason, on the result line (bounded: the answered message's budget counts it). */
function reasonNote(card: AnsweredCard): string {
	return card.reason !== undefined ? ` _${escapeDiscordMarkdown(fitLine(card.reason, 150))}_` : "";
}

function answeredControls(card: AnsweredCard, layout: ChoiceLayout): DiscordActionRow[] {
	const id = card.toolCallId;
	const c = layout.controls;
	const style = (index: number): APIButtonComponentWithCustomId["style"] => {
		// A prediction is a guess: its choice is never red.
		if (index === card.chosenIndex && card.quizType === "predict") return ButtonStyle.Primary;
		if (index === card.chosenIndex)
			return card.correct === true
				? ButtonStyle.Success
				: card.correct === false
					? ButtonStyle.Danger
					: ButtonStyle.Primary;
		if (index === card.reveal?.correctIndex) return ButtonStyle.Success;
		return ButtonStyle.Secondary;
	};
	const pick = (choice: CardChoice, label: string): APIButtonComponentWithCustomId =>
		button(encodeComponentId({ verb: "pick", toolCallId: id, choice: choice.index }), label, style(choice.index), true);
	if (c.type === "free")
		return [
			row([
				button(
					encodeComponentId({ verb: "open", toolCallId: id }),
					t(loc(card), "card.answeredButton"),
					ButtonStyle.Secondary,
					true,
				),
			]),
		];
	if (c.type === "buttons")
		return [row(card.choices.map((choice) => pick(choice, choiceLabel(choice, layout, D.buttonLabelChars))))];
	if (c.type === "selects") {
		// The select goes; the chosen (and the revealed correct) choice stay as disabled, coloured buttons.
		const shown = card.choices.filter((ch) => ch.index === card.chosenIndex || ch.index === card.reveal?.correctIndex);
		return shown.length > 0 ? [row(shown.map((ch) => pick(ch, `${ch.letter}. ${ch.text}`)))] : [];
	}
	return [];
}

/** Budgets (question 600, answer 120, correct 150, reason 150, explanation 500; escaping at most doubles) keep this near 2000; fitText cuts the rest. */
function answeredMessage(card: AnsweredCard): DiscordMessage {
	const layout = layoutChoices(card.toolCallId, card.choices, CAPACITY);
	const parts = [`**${card.heading}** · ${t(loc(card), "card.answered")}`];
	if (card.question !== undefined && card.question.trim() !== "") parts.push(fitMarkdown(card.question.trim(), 600));
	parts.push(resultLine(card));
	if (card.reveal !== undefined && card.correct !== true) {
		const correct = card.reveal.correctIndex !== undefined ? card.choices[card.reveal.correctIndex] : undefined;
		const text = correct !== undefined ? `${correct.letter}. ${correct.text}` : card.reveal.correctAnswer;
		const answer = `**${escapeDiscordMarkdown(fitLine(text, 150))}**`;
		parts.push(t(loc(card), card.quizType === "predict" ? "play.theAnswer" : "card.correctAnswer", { answer }));
	}
	if (card.reveal?.explanation !== undefined) parts.push(fitMarkdown(card.reveal.explanation.trim(), 500));
	const rest = parts.join("\n\n");
	// The lead stays above the answered card; it gives way (cut) only when everything else needs the room.
	const room = D.contentChars - rest.length - 2;
	const lead = leadText(card.lead);
	const head = lead !== "" && room >= 40 ? `${fitMarkdown(lead, room)}\n\n` : "";
	return message(fitText(`${head}${rest}`, D.contentChars), answeredControls(card, layout));
}

function explainText(card: ExplainCard): string {
	const title = explainHeading(card.title !== undefined ? fitLine(card.title, 200) : undefined, card.role, loc(card));
	const heading = title !== undefined ? `**${title}**` : "";
	return [leadText(card.lead), heading, closeFences(card.body.trim())].filter((p) => p !== "").join("\n\n");
}

function assessmentText(card: AssessmentCard): string {
	const strands = card.strands.map((s) => `**${fitLine(s.strand, 200)}**\n${closeFences(s.assessment.trim())}`);
	const summary = card.summary !== undefined ? [closeFences(card.summary.trim())] : [];
	return [`**${t(loc(card), "card.whereYouAre")}**`, ...summary, ...strands].join("\n\n");
}

function textContent(card: TextCard): string {
	return card.tone === "error" ? `⚠️ ${card.text.trim()}` : card.tone === "notice" ? `_${card.text.trim()}_` : card.text;
}

/** A card as Discord messages, each a valid REST body within every limit; controls on the last. Never throws. */
export function toDiscordMessages(card: Card): DiscordMessage[] {
	switch (card.kind) {
		case "question":
			return questionMessages(card);
		case "answered":
			return [answeredMessage(card)];
		case "explain":
			return messages(explainText(card), undefined, card.attachments);
		case "assessment":
			return messages(assessmentText(card), undefined, card.attachments);
		case "text":
			return messages(textContent(card), undefined, card.attachments);
	}
}
