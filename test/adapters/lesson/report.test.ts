/**
 * The admin's CSV (`/lesson report`): no cell a spreadsheet could read as a formula, in any locale's
 * separator (`,` in English settings, `;` in German, Spanish and French ones, a tab when pasted).
 */

import { describe, expect, it } from "vitest";
import { REPORT_COLUMNS, reportCsv } from "../../../src/adapters/lesson/report.ts";
import type { ReportRow } from "../../../src/agent/index.ts";

const row = (topic: string): ReportRow => ({
	member: "u1",
	sessionId: "discord:g:t",
	topic,
	startedAt: "2026-12-01T10:00:00.000Z",
	endedAt: "2026-12-01T10:30:00.000Z",
	questionsAnswered: 3,
	firstTryAccuracy: 2 / 3,
	nodesLearned: 1,
	reviewsDone: 0,
});

/** The cells of one CSV line split the way a spreadsheet with `separator` does it (quotes respected). */
function cellsAs(line: string, separator: string): string[] {
	const out: string[] = [];
	let cell = "";
	let quoted = false;
	for (let i = 0; i < line.length; i++) {
		const ch = line[i];
		if (quoted) {
			if (ch === '"' && line[i + 1] === '"') {
				cell += '"';
				i++;
			} else if (ch === '"') quoted = false;
			else cell += ch;
		} else if (ch === '"') quoted = true;
		else if (ch === separator) {
			out.push(cell);
			cell = "";
		} else cell += ch;
	}
	out.push(cell);
	return out;
}

describe("reportCsv", () => {
	it("writes a header and one line per row, CRLF", () => {
		const csv = reportCsv([row("fractions")]);
		const lines = csv.split("\r\n");
		expect(lines[0]).toBe(REPORT_COLUMNS.join(","));
		expect(cellsAs(lines[1] ?? "", ",")).toEqual([
			"u1",
			"discord:g:t",
			"fractions",
			"2026-12-01T10:00:00.000Z",
			"2026-12-01T10:30:00.000Z",
			"3",
			"0.667",
			"1",
			"0",
		]);
	});

	it("no cell starts a formula whether the sheet splits on commas, semicolons or tabs", () => {
		const topics = ["x;=1+1", "x\t=1+1", "x,=1+1", '=HYPERLINK("http://evil")', "+1", "-1", "@SUM(A1)", 'a";=1+1'];
		const csv = reportCsv(topics.map(row));
		for (const line of csv.split("\r\n").slice(1, -1))
			for (const separator of [",", ";", "\t"])
				for (const cell of cellsAs(line, separator)) expect(cell).not.toMatch(/^[=+\-@]/);
	});

	it("keeps the topic's words (a quoted cell reads back whole)", () => {
		const line = reportCsv([row('C++; "Rust"')]).split("\r\n")[1] ?? "";
		expect(cellsAs(line, ",")[2]).toBe('C++; "Rust"');
		expect(cellsAs(line, ";")).toHaveLength(1); // the semicolon is inside quotes: no split
	});
});
