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

function field(value: string | number): string {
	let s = String(value);
	if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
	// Quoted whenever a spreadsheet could split it: `,` here, but `;` in German, Spanish or French settings and a tab
	// when pasted, and a split-off `=1+1` would be read as a formula.
	return /[",;\t\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The report as CSV (RFC 4180, CRLF line ends, a header line). */
export function reportCsv(rows: readonly ReportRow[]): string {
	const lines = [REPORT_COLUMNS.join(",")];
	for (const r of rows)
		lines.push(
			[
				r.member,
				r.sessionId,
				r.topic,
				r.startedAt,
				r.endedAt,
				r.questionsAnswered,
				r.firstTryAccuracy.toFixed(3),
				r.nodesLearned,
				r.reviewsDone,
			]
				.map(field)
				.join(","),
		);
	return `${lines.join("\r\n")}\r\n`;
}
