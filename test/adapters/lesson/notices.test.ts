/**
 * The shared refusal notices: one sentence per refusal code, the platform's
 * start hint and admin hint, the learner named when known, and the tutor's
 * own reason escaped for the platform's markup.
 */

import { describe, expect, it } from "vitest";
import {
	channelNotAllowedNotice,
	closingLine,
	dailyLimitNotice,
	pendingLabel,
	phaseLabel,
	refusalNotice,
} from "../../../src/adapters/lesson/notices.ts";
import type { RefusalCode } from "../../../src/core/contracts/events.ts";

const style = { startHint: "`/lesson start`", adminHint: " (Manage Server)" };
const CODES: RefusalCode[] = [
	"unknown-session",
	"ended",
	"not-allowed",
	"not-pending",
	"already-answered",
	"invalid-answer",
	"closing",
];

describe("refusalNotice", () => {
	it("has a distinct, non-empty notice for every refusal code", () => {
		const texts = CODES.map((code) => refusalNotice({ code, message: "" }, style));
		expect(texts.every((t) => t.length > 10)).toBe(true);
		expect(new Set(texts).size).toBe(CODES.length);
	});

	it("shows the engine's own message for codes it has no words of its own for (store-unavailable)", () => {
		const refusal = {
			code: "store-unavailable" as const,
			message: "The lesson could not be saved; try again in a moment.",
		};
		expect(refusalNotice(refusal, { ...style, escape: (t) => t.replace(/;/g, "\\;") })).toBe(
			"The lesson could not be saved\\; try again in a moment.",
		);
	});

	it("says how to start a lesson where that helps", () => {
		for (const code of ["unknown-session", "ended", "not-allowed"] as const)
			expect(refusalNotice({ code, message: "" }, style)).toContain("`/lesson start`");
	});

	it("names the learner of a solo lesson when known, and who may end a lesson", () => {
		expect(refusalNotice({ code: "not-allowed", message: "" }, style, { learner: "<@U1>" })).toMatch(
			/^This is <@U1>'s solo lesson/,
		);
		expect(refusalNotice({ code: "not-allowed", message: "" }, style)).toMatch(/someone else's solo lesson/);
		expect(refusalNotice({ code: "not-allowed", message: "" }, style, { action: "end" })).toBe(
			"Only the learner or an admin (Manage Server) can end this lesson.",
		);
	});

	it("carries the tutor's reason for an invalid answer, escaped", () => {
		const escapeHtml = (t: string) => t.replace(/</g, "&lt;");
		expect(refusalNotice({ code: "invalid-answer", message: "Pick <A>" }, { ...style, escape: escapeHtml })).toBe(
			"That answer could not be recorded: Pick &lt;A>",
		);
		expect(refusalNotice({ code: "invalid-answer", message: "  " }, style)).toBe("That answer could not be recorded.");
	});
});

describe("the adapters' own wording", () => {
	it("counts lessons and questions in words, never 'lesson(s)'", () => {
		expect(dailyLimitNotice(1, 1)).toBe(
			"You have already started 1 lesson today; the limit here is 1 lesson per member per day (UTC). Try again tomorrow.",
		);
		expect(dailyLimitNotice(3, 2)).toContain("started 3 lessons today; the limit here is 2 lessons per member");
		expect(pendingLabel(0)).toBe("no question open");
		expect(pendingLabel(1)).toBe("1 question waiting for an answer");
		expect(pendingLabel(2)).toBe("2 questions waiting for an answer");
	});

	it("says where lessons may run and how to start one there", () => {
		expect(channelNotAllowedNotice(["<#C1>"], "`/lesson start`")).toBe(
			"Lessons can't run in this channel. Run `/lesson start` in <#C1>.",
		);
		expect(channelNotAllowedNotice(["<#C1>", "<#C2>", "<#C3>"], "`/x`")).toContain("in <#C1>, <#C2>, or <#C3>.");
	});

	it("names phases as a learner reads them, and closes a lesson with what to do next", () => {
		expect(["probe", "teach", "ended"].map((p) => phaseLabel(p))).toEqual([
			"finding out what you already know",
			"teaching",
			"ended",
		]);
		expect(closingLine(" Lesson complete. Well done! ", "`/lesson start`")).toBe(
			"Lesson complete. Well done! Start another lesson any time with `/lesson start`.",
		);
	});
});
