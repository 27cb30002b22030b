/**
 * `/lesson report`: the admin's CSV. Numbers only (ids, dates, counts, the
 * topic the lesson was started with); no transcript text. A field that a
 * spreadsheet would read as a formula (`=`, `+`, `-`, `@` first) is quoted
 * with a leading apostrophe; one holding a separator any locale uses (`,`, `;`, a tab) or a line break is
 * quoted, so no part of it can start a cell of its own.
 */

import type { ReportRow } from "../../agent/index.ts";

/** The CSV header, in column order. */
export const REPORT_COLUMNS = [
	"member",
	"lesson",
	"topic",
	"started",
	"ended",
	"questions_answered",
	"first_try_accuracy",
	"nodes_learned",
	"reviews_done",
] as const;

/** What a field must be checked for: a formula's first character, or a separator or line break anywhere. */
const RISKY = /^[=+\-@\t\r]|[",;\t\n\r]/;

function field(value: string): string {
	// Most fields (ids, dates) hold none: one test, not two (a report of 20,000 lessons has 100,000 text fields).
	if (!RISKY.test(value)) return value;
	let s = value;
	if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
	// Quoted whenever a spreadsheet could split it: `,` here, but `;` in German, Spanish or French settings and a tab
	// when pasted, and a split-off `=1+1` would be read as a formula.
	return /[",;\t\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The report as CSV (RFC 4180, CRLF line ends, a header line). */
export function reportCsv(rows: readonly ReportRow[]): string {
	const lines = [REPORT_COLUMNS.join(",")];
	// The numbers are ours (counts, a ratio): no sign, separator or line break to guard against.
	for (const r of rows)
		lines.push(
			`${field(r.member)},${field(r.sessionId)},${field(r.topic)},${field(r.startedAt)},${field(r.endedAt)},` +
				`${r.questionsAnswered},${r.firstTryAccuracy.toFixed(3)},${r.nodesLearned},${r.reviewsDone}`,
		);
	return `${lines.join("\r\n")}\r\n`;
}
