import { describe, expect, it } from "vitest";
import { checkVerdict } from "../../src/core/mastery.ts";
import { GENERIC_HINT, MAX_HINT_CHARS, safeHint } from "../../src/core/struggle.ts";

describe("safeHint", () => {
	it("keeps a hint that does not give the answer away, bounded", () => {
		expect(safeHint("  Match the denominators first. ", "3/4")).toBe("Match the denominators first.");
		expect(safeHint("x".repeat(5000), "3/4")).toHaveLength(MAX_HINT_CHARS);
	});

	it("replaces a hint holding the correct answer verbatim (case and spacing aside), or an empty one", () => {
		expect(safeHint("It is  COS(x), of course", "cos(x)")).toBe(GENERIC_HINT);
		expect(safeHint("   ", "cos(x)")).toBe(GENERIC_HINT);
		// A short answer counts as a whole word only: "8" is in "8 items", not in "18" or "a8".
		expect(safeHint("Count the 8 items", "8")).toBe(GENERIC_HINT);
		expect(safeHint("Think of 18 or a8", "8")).toBe("Think of 18 or a8");
	});

	it("is linear on a long hostile hint", () => {
		const hint = "ab ".repeat(100_000);
		const safe = safeHint(hint, "a b a b a b c");
		expect(safe.length).toBeLessThanOrEqual(MAX_HINT_CHARS);
		expect(safe.startsWith("ab ab")).toBe(true);
	});
});

describe("mastery", () => {
	it("reads not sure as shaky with or without `correct`, help as shaky, explain-again as no answer", () => {
		expect(checkVerdict({ answer: "Not sure", notSure: true })).toBe("shaky");
		expect(checkVerdict({ answer: "Not sure", notSure: true, correct: false })).toBe("shaky");
		expect(checkVerdict({ answer: "B", correct: true, hinted: true })).toBe("shaky");
		expect(checkVerdict({ answer: "B", correct: true, attempts: [{ answer: "A", correct: false }] })).toBe("shaky");
		expect(checkVerdict({ answer: "", correct: false, revealed: true })).toBe("shaky");
		expect(checkVerdict({ answer: "", explainAgain: true })).toBeUndefined();
		expect(checkVerdict({ answer: "B", correct: true })).toBe("learned");
	});
});
