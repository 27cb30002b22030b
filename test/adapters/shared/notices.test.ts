/**
 * The shared refusal notices: one sentence per refusal code, the platform's
 * start hint and admin hint, the learner named when known, and the tutor's
 * own reason escaped for the platform's markup.
 */

import { describe, expect, it } from "vitest";
import { refusalNotice } from "../../../src/adapters/shared/notices.ts";
import type { RefusalCode } from "../../../src/core/contracts/events.ts";

const style = { startHint: "`/lesson start`", adminHint: " (Manage Server)" };
const CODES: RefusalCode[] = [
	"unknown-session",
	"ended",
	"not-allowed",
	"not-pending",
	"already-answered",
	"invalid-answer",
];

describe("refusalNotice", () => {
	it("has a distinct, non-empty notice for every refusal code", () => {
		const texts = CODES.map((code) => refusalNotice({ code, message: "" }, style));
		expect(texts.every((t) => t.length > 10)).toBe(true);
		expect(new Set(texts).size).toBe(CODES.length);
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
