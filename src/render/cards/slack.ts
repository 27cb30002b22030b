/**
 * Card -> Slack Block Kit messages (@slack/types JSON). Markdown becomes
 * mrkdwn (markdownToMrkdwn), split into sections of at most 3000 characters,
 * at most 50 blocks a message; controls (an actions block) ride on the last.
 * Buttons for few choices, static_select (100 options each) for more, an
 * "Answer" button (opening slackAnswerModal) for free answers. The answered
 * state is ONE message without controls (Slack has no disabled buttons).
 */

import type { ActionsBlock, Button, KnownBlock, PlainTextOption, SectionBlock, StaticSelect } from "@slack/types";
import { HELP_KINDS } from "../../core/struggle.ts";
import { DEFAULT_LOCALE, type Locale, t } from "../../i18n/index.ts";
import { longCodeToFiles } from "../code-files.ts";
import { encodeComponentId } from "../component-id.ts";
import { escapeMrkdwn, markdownToMrkdwn as toMrkdwn } from "../markdown.ts";
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
import { fitLine, fitMarkdown, SLACK_LIMITS as S } from "./limits.ts";
import type {
	AnsweredCard,
	AssessmentCard,
	Card,
	CardAttachment,
	CardChoice,
	ExplainCard,
	QuestionCard,
	TextCard,
} from "./model.ts";
import { displayName, helpLabel } from "./model.ts";

/** The language of a card's own words. */
const loc = (card: { locale?: Locale }): Locale => card.locale ?? DEFAULT_LOCALE;

/** A picture to upload (no channel: a private file) before posting: its image block (`block_id`) then points at the file. */
export interface SlackImage {
	blockId: string;
	filename: string;
	data: Buffer;
	alt: string;
}

/** A file to share in the thread after the message (long code). */
export interface SlackFileShare {
	filename: string;
	data: Buffer;
	title: string;
}

/** One Slack message: the notification fallback `text` and its blocks, plus what to upload with it. */
export interface SlackMessage {
	text: string;
	blocks: KnownBlock[];
	/** Image blocks whose `slack_file.id` is filled by the poster once the PNG is uploaded (drop the block if it fails). */
	images?: SlackImage[];
	/** Files to share in the thread after this message. */
	files?: SlackFileShare[];
}

/** Code blocks longer than this go as a file with a preview. */
export const SLACK_CODE_FILE_CHARS = 2500;
/** Longest image alt text. */
const ALT_CHARS = 2000;

/** Files pulled out of the markdown of the card being mapped (reset by toSlackMessages; mapping is synchronous). */
let pendingFiles: CardAttachment[] = [];

/** Markdown -> mrkdwn with tables aligned in code blocks and long code moved to files. */
function markdownToMrkdwn(markdown: string): string {
	const { text, files } = longCodeToFiles(tablesToCode(markdown), SLACK_CODE_FILE_CHARS);
	pendingFiles.push(...files);
	return toMrkdwn(text);
}

/** Image blocks for a card's pictures (the poster uploads them and fills the file ids). */
function imageBlocks(pictures: readonly CardAttachment[] | undefined): { blocks: KnownBlock[]; images: SlackImage[] } {
	const blocks: KnownBlock[] = [];
	const images: SlackImage[] = [];
	for (const [i, a] of (pictures ?? []).entries()) {
		if (a.kind !== "image" || i >= 10) continue;
		const blockId = `lh-img-${i}`;
		const alt = fitLine(a.alt, ALT_CHARS) || "formula";
		blocks.push({ type: "image", block_id: blockId, alt_text: alt, slack_file: { id: "" } });
		images.push({ blockId, filename: a.filename, data: a.data, alt });
	}
	return { blocks, images };
}

const CAPACITY = {
	maxButtons: 5,
	perSelect: S.staticSelectOptions,
	maxSelects: S.actionsElements,
	labelChars: S.optionTextChars,
};

function section(mrkdwn: string): SectionBlock {
	return { type: "section", text: { type: "mrkdwn", text: mrkdwn } };
}

/** mrkdwn as section blocks of at most 3000 characters. */
function sections(mrkdwn: string): SectionBlock[] {
	return splitMessage(mrkdwn, S.sectionTextChars).map(section);
}

function header(text: string): KnownBlock {
	return { type: "header", text: { type: "plain_text", text: fitLine(text, S.headerTextChars) || "…", emoji: true } };
}

/** Blocks as messages of at most 50 blocks; `controls` go on the last (a new message when the last is full). */
function messages(
	fallback: string,
	textBlocks: KnownBlock[],
	controls: KnownBlock[] = [],
	pictures?: readonly CardAttachment[],
): SlackMessage[] {
	// Escaped so the notification text cannot mention anyone; 600 chars escape to at most 3000.
	const text = escapeMrkdwn(fitLine(fallback, S.fallbackTextChars / 5)) || "…";
	const images = imageBlocks(pictures);
	const blocks = [...textBlocks, ...images.blocks];
	const out: SlackMessage[] = [];
	for (let i = 0; i < blocks.length; i += S.blocksPerMessage)
		out.push({ text, blocks: blocks.slice(i, i + S.blocksPerMessage) });
	if (controls.length > 0) {
		const last = out.at(-1);
		if (last !== undefined && last.blocks.length + controls.length <= S.blocksPerMessage) last.blocks.push(...controls);
		else out.push({ text, blocks: controls });
	}
	if (out.length === 0) out.push({ text, blocks: [section(text)] });
	for (const m of out) {
		const ids = new Set(m.blocks.map((b) => b.block_id));
		const mine = images.images.filter((i) => ids.has(i.blockId));
		if (mine.length > 0) m.images = mine;
	}
	const files = pendingFiles.splice(0);
	const last = out.at(-1);
	if (last !== undefined && files.length > 0)
		last.files = files.map((f) => ({ filename: f.filename, data: f.data, title: f.kind === "file" ? f.title : f.alt }));
	return out;
}

function plain(text: string, max: number): { type: "plain_text"; text: string; emoji: true } {
	return { type: "plain_text", text: fitLine(text, max) || "…", emoji: true };
}

function choiceOption(choice: CardChoice, layout: ChoiceLayout): PlainTextOption {
	return {
		text: plain(choiceLabel(choice, layout, S.optionTextChars), S.optionTextChars),
		value: String(choice.index),
		...(layout.inBody && choice.text.trim() !== "" ? { description: plain(choice.text, S.optionTextChars) } : {}),
	};
}

/** The help controls of a question as their own actions block (at most 5 buttons). */
function helpBlock(card: QuestionCard): ActionsBlock[] {
	const kinds = (card.help ?? []).slice(0, 5);
	if (kinds.length === 0) return [];
	const elements: Button[] = kinds.map((kind) => ({
		type: "button",
		action_id: encodeComponentId({ verb: "help", toolCallId: card.toolCallId, choice: HELP_KINDS.indexOf(kind) }),
		text: plain(helpLabel(kind, loc(card)), S.buttonTextChars),
		value: kind,
		...(kind === "again" ? { style: "primary" as const } : {}),
	}));
	return [{ type: "actions", elements }];
}

function questionControls(card: QuestionCard, layout: ChoiceLayout): ActionsBlock[] {
	const c = layout.controls;
	// Component ids that do not fit leave the card without any control (the degraded form says what to do).
	if (c.type === "none" && c.reason === "ids") return [];
	// A missed check offers help only (Try again, Hint, Show answer); the choices stay in the text.
	if (card.struggle?.state === "missed") return helpBlock(card);
	return [...choiceControls(card, layout), ...helpBlock(card)];
}

function choiceControls(card: QuestionCard, layout: ChoiceLayout): ActionsBlock[] {
	const id = card.toolCallId;
	const c = layout.controls;
	let elements: Array<Button | StaticSelect> = [];
	if (c.type === "free")
		elements = [
			{
				type: "button",
				action_id: encodeComponentId({ verb: "open", toolCallId: id }),
				text: plain(t(loc(card), "card.answerButton"), S.buttonTextChars),
				style: "primary",
			},
		];
	else if (c.type === "buttons")
		elements = card.choices.map((choice) => ({
			type: "button",
			action_id: encodeComponentId({ verb: "pick", toolCallId: id, choice: choice.index }),
			text: plain(choiceLabel(choice, layout, S.buttonTextChars), S.buttonTextChars),
			value: String(choice.index),
		}));
	else if (c.type === "selects")
		for (let start = 0; start < card.choices.length; start += c.perSelect) {
			const slice = card.choices.slice(start, start + c.perSelect);
			const placeholder =
				card.choices.length > c.perSelect
					? t(loc(card), "card.chooseRange", { first: slice[0]?.letter ?? "", last: slice.at(-1)?.letter ?? "" })
					: t(loc(card), "card.choose");
			elements.push({
				type: "static_select",
				action_id: encodeComponentId({ verb: "select", toolCallId: id, choice: start }),
				placeholder: plain(placeholder, S.placeholderChars),
				options: slice.map((choice) => choiceOption(choice, layout)),
			});
		}
	return elements.length > 0 ? [{ type: "actions", elements }] : [];
}

function choiceList(choices: readonly CardChoice[]): string {
	return choices.map((c) => `*${c.letter}.* ${markdownToMrkdwn(c.text)}`).join("\n");
}

/** A card's lead (tutor text above it) as sections; none when there is no lead. */
function leadSections(lead: string | undefined): SectionBlock[] {
	const text = typeof lead === "string" ? lead.trim() : "";
	return text === "" ? [] : sections(markdownToMrkdwn(text));
}

function questionMessages(card: QuestionCard): SlackMessage[] {
	const layout = layoutChoices(card.toolCallId, card.choices, CAPACITY, card.choicesPictured === true);
	const head = `*${escapeMrkdwn(card.heading)}*${card.framing !== undefined ? ` · _${escapeMrkdwn(card.framing)}_` : ""}`;
	const blocks: KnownBlock[] = [
		...leadSections(card.lead),
		section(head),
		...sections(markdownToMrkdwn(card.question)),
	];
	const missed = card.struggle?.state === "missed";
	if (layout.inBody || (missed && !card.choicesPictured && card.choices.length > 0))
		blocks.push(...sections(choiceList(card.choices)));
	if (layout.controls.type === "none" && !missed)
		blocks.push(section(`_${escapeMrkdwn(degradedNote(layout.controls.reason, card.choices.length > 0, loc(card)))}_`));
	return messages(`${card.heading}: ${card.question}`, blocks, questionControls(card, layout), card.attachments);
}

/** Who answered: their name, else (a Slack user id) a mention, which renders as the name; edits do not notify. */
function who(card: AnsweredCard): string {
	const name = (card.by?.name ?? "").trim();
	const id = typeof card.by?.id === "string" ? card.by.id : "";
	if (name === "" && /^[UW][A-Z0-9]{1,30}$/.test(id)) return `<@${id}>`;
	return `*${escapeMrkdwn(fitLine(displayName(card.by, loc(card)), 60))}*`;
}

/** The choices the card had (Slack drops the buttons once answered), one per line; at most 10. */
function choicesContext(card: AnsweredCard): KnownBlock[] {
	if (card.choices.length === 0 || card.choices.length > 10) return [];
	const lines = card.choices.map((c) => {
		const text = `${c.letter}. ${escapeMrkdwn(fitLine(c.text, 150))}`;
		return c.index === card.chosenIndex ? `*${text}*` : text;
	});
	return [{ type: "context", elements: [{ type: "mrkdwn", text: lines.join("\n") }] }];
}

function resultLine(card: AnsweredCard): string {
	const who_ = who(card);
	const locale = loc(card);
	if (card.skipped === true) return `:next_track_button: ${t(locale, "card.skipped", { who: who_ })}`;
	const chosen = card.chosenIndex !== undefined ? card.choices[card.chosenIndex] : undefined;
	const what = `*${escapeMrkdwn(fitLine(chosen !== undefined ? `${chosen.letter}. ${chosen.text}` : card.answer, 300))}*`;
	const why = card.reason !== undefined ? ` _${escapeMrkdwn(fitLine(card.reason, 200))}_` : "";
	if (card.checking === true)
		return `:hourglass_flowing_sand: ${t(locale, "card.answeredChecking", { who: who_, what })}`;
	if (card.tie !== undefined && card.tie.length > 0) {
		const tied = card.tie.map((a) => `*${escapeMrkdwn(fitLine(a, 60))}*`).join(" · ");
		return `:scales: ${t(locale, "card.answeredTie", { who: who_, what: tied })}`;
	}
	const { outcome, how } = answerOutcome(card);
	if (outcome === "not-sure") return `:shrug: ${t(locale, "card.notSure", { who: who_, how })}`;
	if (outcome === "explain-again") return `:arrows_counterclockwise: ${t(locale, "card.explainAgain", { who: who_ })}`;
	if (outcome === "prediction") return `:crystal_ball: ${t(locale, "card.prediction", { who: who_, what })}`;
	if (outcome === "correct")
		return `:white_check_mark: ${t(locale, "card.answeredCorrect", { who: who_, what }).replace(/\.$/, "")}${how}.${why}`;
	if (outcome === "shown") return `:eyes: ${t(locale, "card.shown", { who: who_, how })}`;
	if (outcome === "wrong")
		return `:x: ${t(locale, "card.answeredWrong", { who: who_, what }).replace(/\.$/, "")}${how}.${why}`;
	return `:speech_balloon: ${t(locale, "card.answeredPlain", { who: who_, what })}${why}`;
}

function answeredMessage(card: AnsweredCard): SlackMessage {
	const lead = typeof card.lead === "string" ? card.lead.trim() : "";
	const blocks: KnownBlock[] = [];
	if (lead !== "") blocks.push(section(fitMarkdown(markdownToMrkdwn(lead), S.sectionTextChars)));
	blocks.push(section(`*${escapeMrkdwn(card.heading)}* · ${t(loc(card), "card.answered")}`));
	if (card.question !== undefined && card.question.trim() !== "")
		blocks.push(section(fitMarkdown(markdownToMrkdwn(card.question), 1500)));
	blocks.push(...choicesContext(card));
	blocks.push(section(resultLine(card)));
	if (card.reveal !== undefined && card.correct !== true) {
		const correct = card.reveal.correctIndex !== undefined ? card.choices[card.reveal.correctIndex] : undefined;
		const text = correct !== undefined ? `${correct.letter}. ${correct.text}` : card.reveal.correctAnswer;
		const answer = `*${escapeMrkdwn(fitLine(text, 500))}*`;
		blocks.push(
			section(t(loc(card), card.quizType === "predict" ? "play.theAnswer" : "card.correctAnswer", { answer })),
		);
	}
	const explanation = card.reveal?.explanation !== undefined ? markdownToMrkdwn(card.reveal.explanation) : "";
	if (explanation !== "") blocks.push(section(fitMarkdown(explanation, S.sectionTextChars)));
	const what = card.skipped === true ? t(loc(card), "card.skippedShort") : card.answer;
	const [first] = messages(`${card.heading}: ${what}`, blocks);
	return first ?? { text: card.answer, blocks };
}

function explainMessages(card: ExplainCard): SlackMessage[] {
	const title = explainHeading(card.title, card.role, loc(card));
	const blocks: KnownBlock[] = [...leadSections(card.lead)];
	if (title !== undefined) blocks.push(header(title));
	blocks.push(...sections(markdownToMrkdwn(card.body)));
	return messages(title ?? card.body, blocks, [], card.attachments);
}

function assessmentMessages(card: AssessmentCard): SlackMessage[] {
	const where = t(loc(card), "card.whereYouAre");
	const blocks: KnownBlock[] = [header(where)];
	if (card.summary !== undefined) blocks.push(...sections(markdownToMrkdwn(card.summary)));
	for (const s of card.strands)
		blocks.push(...sections(`*${escapeMrkdwn(fitLine(s.strand, 200))}*\n${markdownToMrkdwn(s.assessment)}`));
	return messages(`${where}: ${card.strands.map((s) => s.strand).join(", ")}`, blocks, [], card.attachments);
}

function textMessages(card: TextCard): SlackMessage[] {
	const body = markdownToMrkdwn(card.text);
	const text = card.tone === "error" ? `:warning: ${body}` : card.tone === "notice" ? `_${body}_` : body;
	return messages(card.text, sections(text), [], card.attachments);
}

/** A card as Slack messages, each within every Block Kit limit; controls on the last. Never throws. */
export function toSlackMessages(card: Card): SlackMessage[] {
	// Synchronous and not re-entrant: the files collected while this card is mapped belong to it alone.
	pendingFiles = [];
	switch (card.kind) {
		case "question":
			return questionMessages(card);
		case "answered":
			return [answeredMessage(card)];
		case "explain":
			return explainMessages(card);
		case "assessment":
			return assessmentMessages(card);
		case "text":
			return textMessages(card);
	}
}
