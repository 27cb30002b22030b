/**
 * The dashboard's CSV export: one row per participant per lesson (a group
 * lesson's members each have theirs), the same numbers the pages sum. Member
 * ids are written with their platform (`discord:123…`, `slack:U…`), so a
 * spreadsheet reads them as text, never as a number in scientific notation;
 * names stand beside them. A field a spreadsheet would take for a formula
 * (`=`, `+`, `-`, `@` first) gets a leading apostrophe; one holding a
 * separator any locale uses or a line break is quoted (RFC 4180, CRLF).
 */

import type { LessonDigest } from "../agent/index.ts";
import { newestFirst } from "./stats.ts";

/** The header, in column order. */
export const CSV_COLUMNS = [
	"member",
	"name",
	"lesson",
	"topic",
	"mode",
	"started",
	"ended",
	"outcome",
	"questions_answered",
	"first_try_correct",
	"first_try_accuracy",
	"nodes_learned",
	"nodes_shaky",
	"nodes_not_yet",
] as const;

function field(value: string | number): string {
	let s = String(value);
	if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
	return /[",;\t\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** The export of `digests` (newest lesson first), `platform` qualifying the member ids. */
export function dashboardCsv(digests: readonly LessonDigest[], platform: string): string {
	const lines = [CSV_COLUMNS.join(",")];
	for (const d of newestFirst(digests))
		for (const p of d.people) {
			let learned = 0;
			let shaky = 0;
			for (const m of p.mastery)
				if (m === "learned") learned++;
				else if (m === "shaky") shaky++;
			lines.push(
				[
					`${platform}:${p.id}`,
					p.name ?? "",
					d.sessionId,
					d.topic,
					d.mode,
					d.startedAt,
					d.endedAt ?? "",
					d.outcome,
					p.answered,
					p.firstTry,
					p.answered === 0 ? "0.000" : (p.firstTry / p.answered).toFixed(3),
					learned,
					shaky,
					p.mastery.length - learned - shaky,
				]
					.map(field)
					.join(","),
			);
		}
	return `${lines.join("\r\n")}\r\n`;
}
