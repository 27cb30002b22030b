/**
 * Card -> Discord REST message bodies (discord-api-types JSON), Components V2
 * (discord-v2.ts): each message is one framed card, a container whose accent
 * colour shows the status of the node it is about, its text in a text display
 * (4,000 characters a message; longer text splits into more cards, controls
 * ride on the last), its pictures inside as a media gallery with their alt
 * text, long code as file components. Buttons (at most 5, one row) for few
 * choices, string selects (25 options each, up to 5 rows) for more, help in a
 * row under a separator, the "Answer" button of a free answer beside the
 * question (a section's accessory). The answered state is always ONE message
 * (it replaces the card that had the controls, flag kept) with the controls
 * disabled. Mentions never ping.
 */

import {
	type APIAllowedMentions,
	type APIButtonComponentWithCustomId,
	type APIComponentInContainer,
	type APIComponentInMessageActionRow,
	type APIFileComponent,
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
	ACCENT,
	type Accent,
	container,
	type DiscordActionRow,
	type DiscordMessage,
	gallery,
	IS_COMPONENTS_V2,
	section,
	separator,
	textDisplay,
} from "./discord-v2.ts";
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

export type { DiscordActionRow, DiscordFile, DiscordMessage } from "./discord-v2.ts";

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

/** What a card's last message carries besides its text: rows of controls, and a button beside the text. */
interface CardControls {
	rows: DiscordActionRow[];
	/** The free answer's "Answer" button, beside the question (a section's accessory). */
	beside?: APIButtonComponentWithCustomId;
}

const NO_CONTROLS: CardControls = { rows: [] };

/** One V2 message: a container holding `body`, then any top-level extras (file components). */
function v2(accent: Accent, body: APIComponentInContainer[], extras: APIFileComponent[] = []): DiscordMessage {
	return { flags: IS_COMPONENTS_V2, components: [container(accent, body), ...extras], allowed_mentions: NO_MENTIONS };
}

/** The container's body: the text (with the button beside it, when there is one), pictures, then the controls. */
function cardBody(
	text: string,
	controls: CardControls,
	pictures: readonly CardAttachment[],
): APIComponentInContainer[] {
	const body: APIComponentInContainer[] = [controls.beside ? section(text, controls.beside) : textDisplay(text)];
	const images = pictures.flatMap((a) => (a.kind === "image" ? [{ filename: a.filename, alt: a.alt }] : []));
	if (images.length > 0) body.push(gallery(images));
	if (controls.rows.length > 0) body.push(separator(), ...controls.rows);
	return body;
}

/**
 * Text as V2 cards (tables aligned, long code as files), at most 4,000 characters of text each; the last one
 * carries the controls and the attachments (pictures in its media gallery, files as file components).
 */
function messages(
	text: string,
	accent: Accent,
	controls: CardControls = NO_CONTROLS,
	pictures: readonly CardAttachment[] = [],
): DiscordMessage[] {
	const { text: shown, files } = longCodeToFiles(tablesToCode(text), DISCORD_CODE_FILE_CHARS);
	const chunks = splitMessage(shown, D.textDisplayChars);
	if (chunks.length === 0) chunks.push("\u200b"); // a text display must not be empty
	const attached = [...pictures, ...files].slice(0, MAX_ATTACHMENTS);
	const out = chunks.map((chunk, i) => (i < chunks.length - 1 ? v2(accent, [textDisplay(chunk)]) : undefined));
	const lastText = chunks.at(-1) ?? "\u200b";
	const fileComponents: APIFileComponent[] = attached.flatMap((a) =>
		a.kind === "file" ? [{ type: ComponentType.File, file: { url: `attachment://${a.filename}` } }] : [],
	);
	const last = v2(accent, cardBody(lastText, controls, attached), fileComponents);
	if (attached.length > 0) {
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
	return [...out.filter((m): m is DiscordMessage => m !== undefined), last];
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

function questionControls(card: QuestionCard, layout: ChoiceLayout): CardControls {
	const c = layout.controls;
	// Component ids that do not fit leave the card without any control (the degraded form says what to do).
	if (c.type === "none" && c.reason === "ids") return NO_CONTROLS;
	// A missed check offers help only (Try again, Hint, Show answer); the choices stay in the text.
	if (card.struggle?.state === "missed") return { rows: helpRow(card) };
	// A free answer: the Answer button sits beside the question, help under it.
	if (c.type === "free")
		return {
			rows: helpRow(card),
			beside: button(
				encodeComponentId({ verb: "open", toolCallId: card.toolCallId }),
				t(loc(card), "card.answerButton"),
				ButtonStyle.Primary,
			),
		};
	const rows = choiceControls(card, layout);
	// Five rows of selects (over 100 choices) leave no room: the choices win, help goes (typed replies still work).
	return { rows: rows.length < D.rowsPerMessage ? [...rows, ...helpRow(card)] : rows };
}

function choiceControls(card: QuestionCard, layout: ChoiceLayout): DiscordActionRow[] {
	const id = card.toolCallId;
	const c = layout.controls;
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
	const accent = card.struggle !== undefined ? ACCENT.shaky : ACCENT.current;
	return messages(parts.filter((p) => p !== "").join("\n\n"), accent, questionControls(card, layout), card.attachments);
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

/** The accent of an answered card: the node's status its answer shows. */
function answeredAccent(card: AnsweredCard): Accent {
	if (card.skipped === true || card.checking === true || (card.tie !== undefined && card.tie.length > 0))
		return ACCENT.neutral;
	const { outcome } = answerOutcome(card);
	if (outcome === "correct") return ACCENT.learned;
	if (outcome === "prediction") return ACCENT.prediction;
	if (outcome === "plain") return ACCENT.neutral;
	return ACCENT.shaky; // wrong, shown, not sure, explain again
}

function answeredControls(card: AnsweredCard, layout: ChoiceLayout): CardControls {
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
		return {
			rows: [],
			beside: button(
				encodeComponentId({ verb: "open", toolCallId: id }),
				t(loc(card), "card.answeredButton"),
				ButtonStyle.Secondary,
				true,
			),
		};
	if (c.type === "buttons")
		return {
			rows: [row(card.choices.map((choice) => pick(choice, choiceLabel(choice, layout, D.buttonLabelChars))))],
		};
	if (c.type === "selects") {
		// The select goes; the chosen (and the revealed correct) choice stay as disabled, coloured buttons.
		const shown = card.choices.filter((ch) => ch.index === card.chosenIndex || ch.index === card.reveal?.correctIndex);
		return shown.length > 0 ? { rows: [row(shown.map((ch) => pick(ch, `${ch.letter}. ${ch.text}`)))] } : NO_CONTROLS;
	}
	return NO_CONTROLS;
}

/** Budgets (question 600, answer 120, correct 150, reason 150, explanation 500; escaping at most doubles) keep this near 2000 (one phone screen); fitText cuts the rest. */
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
	const controls = answeredControls(card, layout);
	return v2(answeredAccent(card), cardBody(fitText(`${head}${rest}`, D.contentChars), controls, []));
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

/** A card as Discord V2 messages, each a valid REST body within every limit; controls on the last. Never throws. */
export function toDiscordMessages(card: Card): DiscordMessage[] {
	switch (card.kind) {
		case "question":
			return questionMessages(card);
		case "answered":
			return [answeredMessage(card)];
		case "explain":
			return messages(explainText(card), ACCENT.current, NO_CONTROLS, card.attachments);
		case "assessment":
			return messages(assessmentText(card), ACCENT.neutral, NO_CONTROLS, card.attachments);
		case "text": {
			const accent = card.tone === "error" ? ACCENT.error : card.tone === "notice" ? ACCENT.neutral : ACCENT.current;
			return messages(textContent(card), accent, NO_CONTROLS, card.attachments);
		}
	}
}

/** A picture (the lesson map, progress) as a V2 card: its caption, the picture inside with its alt text. */
export function discordPictureMessage(picture: {
	caption: string;
	alt?: string;
	png: Buffer;
	filename?: string;
}): DiscordMessage {
	const filename = picture.filename ?? "plan.png";
	const alt = fitLine(picture.alt || picture.caption, DESCRIPTION_CHARS);
	return {
		...v2(ACCENT.current, [textDisplay(fitText(picture.caption, D.textDisplayChars)), gallery([{ filename, alt }])]),
		attachments: [{ id: 0, filename, description: alt }],
		files: [{ name: filename, data: picture.png, contentType: "image/png" }],
	};
}
