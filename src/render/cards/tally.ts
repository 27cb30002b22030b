/**
 * The tally of a group vote as one text card (markdown): counts per option
 * with a bar, the right option marked when it is revealed (check quizzes, and
 * not while a revote follows), a tie said as a tie, why a revote follows (a
 * split, or a wrong answer: a second vote before any reveal), and who chose
 * what only when the server's `vote_names` setting says so. Bounded by
 * construction: each option line, the tie line and the names line are cut, so
 * the card always fits one Discord message (2000) and one Slack section (3000).
 */

import type { VoteOutcome } from "../../core/contracts/vote-outcome.ts";
import { DEFAULT_LOCALE, type Locale, t, tn } from "../../i18n/index.ts";
import type { AnsweredEvent } from "./from-event.ts";
import { choiceLetter, type TextCard } from "./model.ts";

/** Most characters of an option's text on its tally line. */
const OPTION_CHARS = 60;
/** Most lines of counts (options or distinct typed answers). */
const MAX_LINES = 12;
/** Most characters of the names line. */
const NAMES_CHARS = 500;
/** Longest bar (a bar per vote share, not per vote). */
const BAR = 10;

const clip = (text: string, max: number): string => {
	const flat = text.replace(/\s+/g, " ").trim();
	return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
};

const norm = (text: string): string => text.trim().toLowerCase();

/** The lines of counts: every option of a quiz with options (zeros too), else the typed answers, most chosen first. */
function countLines(
	vote: VoteOutcome,
	options: readonly string[],
	correctAnswer: string,
	reveal: boolean,
	locale: Locale,
): string[] {
	const count = (answer: string) => vote.counts.find((c) => norm(c.answer) === norm(answer))?.count ?? 0;
	const bar = (n: number) => "█".repeat(vote.voters === 0 ? 0 : Math.round((n / vote.voters) * BAR)) || "·";
	const mark = (right: boolean) => (reveal && right ? " ✓" : "");
	const rows =
		options.length > 0
			? options.map((o, i) => ({
					label: `${choiceLetter(i)}. ${clip(o, OPTION_CHARS)}`,
					n: count(o),
					right: o === correctAnswer,
				}))
			: vote.counts.map((c) => ({ label: clip(c.answer, OPTION_CHARS), n: c.count, right: c.correct === true }));
	const shown = rows.slice(0, MAX_LINES).map((r) => `${r.label}: ${bar(r.n)} ${r.n}${mark(r.right)}`);
	if (rows.length > MAX_LINES) shown.push(t(locale, "tally.more", { count: rows.length - MAX_LINES }));
	return shown;
}

/** The names line (`Ada: B · Bob: A`), cut to a bound. */
function namesLine(vote: VoteOutcome, options: readonly string[], locale: Locale): string {
	const parts = vote.members.map((m) => {
		const i = options.indexOf(m.answer);
		return `${clip(m.name ?? m.id, 40)}: ${i >= 0 ? choiceLetter(i) : clip(m.answer, 30)}`;
	});
	let line = "";
	for (let i = 0; i < parts.length; i++) {
		const next = line === "" ? (parts[i] as string) : `${line} · ${parts[i]}`;
		if (next.length > NAMES_CHARS) return `${line} · ${t(locale, "tally.more", { count: parts.length - i })}`;
		line = next;
	}
	return line;
}

/** The tied answers as their letters (quizzes with options) or their words, cut to a bound. */
function tieLabels(tie: readonly string[], options: readonly string[]): string {
	const labels = tie.slice(0, MAX_LINES).map((answer) => {
		const i = options.findIndex((o) => norm(o) === norm(answer));
		return i >= 0 ? choiceLetter(i) : clip(answer, 30);
	});
	return labels.join(" · ");
}

/** The tally card of a closed group vote; undefined when the answer was not a vote. */
export function tallyCard(event: AnsweredEvent, locale: Locale = DEFAULT_LOCALE): TextCard | undefined {
	const vote = event.result?.vote;
	if (event.kind !== "quiz" || !vote || !Array.isArray(vote.counts) || !Array.isArray(vote.members)) return undefined;
	const quiz = event.quiz;
	const options = Array.isArray(quiz?.options) ? quiz.options.filter((o): o is string => typeof o === "string") : [];
	const reveal = quiz?.type === "check" && !vote.revote;
	const votes = tn(locale, "tally.votes", vote.voters);
	const closed = t(locale, vote.round === 2 ? "tally.revoteClosed" : "tally.voteClosed");
	const head = `🗳️ **${closed}** · ${votes}${vote.timedOut ? t(locale, "tally.timeUp") : ""}`;
	const lines = [
		head,
		...countLines(vote, options, typeof quiz?.correctAnswer === "string" ? quiz.correctAnswer : "", reveal, locale),
	];
	if (vote.namesShown === true && vote.members.length > 0) lines.push(namesLine(vote, options, locale));
	if (Array.isArray(vote.tie) && vote.tie.length >= 2)
		lines.push(t(locale, "tally.tie", { answers: tieLabels(vote.tie, options) }));
	if (vote.revote) lines.push(t(locale, vote.split ? "tally.split" : "tally.again"));
	return { kind: "text", tone: "plain", text: lines.join("\n") };
}
