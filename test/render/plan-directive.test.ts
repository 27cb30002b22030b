/**
 * A plan label holding mermaid directives or comments draws as text: the
 * source carries no `%%`, and Chromium renders a picture, not the fallback.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import type { PlanTree } from "../../src/core/contracts/plan.ts";
import { createPlanRenderer, type PlanRenderer, planMermaidSource } from "../../src/render/index.ts";

// This one broke mermaid's parse before labels were neutralised (the picture fell back to the outline);
// the others were silently eaten as configuration.
const hostile = [
	"%%{init: {'theme':'base','themeCSS':'svg{display:none}'}}%%",
	"%%{init: {'theme':'dark'}}%% dark?",
	'a %% comment; b # c `d` <e> "f"',
	"%%{init: {'maxTextSize': 1}}%%",
];

const plan: PlanTree = {
	version: 1,
	nodes: [...hostile.map((title, i) => ({ id: `h${i}`, title })), { id: "ok", title: "Plain" }],
	edges: hostile.map((_, i) => ({ from: `h${i}`, to: "ok" })),
};
const statuses = { current: "h0", visited: new Set<string>() };

describe("plan labels with mermaid directives", () => {
	let renderer: PlanRenderer;
	beforeAll(() => {
		renderer = createPlanRenderer({ logger: silentLogger, timeoutMs: 15_000 });
	});
	afterAll(async () => {
		await renderer.close();
	});

	it("generates source without a directive or a comment", () => {
		const source = planMermaidSource(plan, statuses);
		expect(source).not.toContain("%%");
		// The words stay, so the learner reads what the model wrote.
		expect(source).toContain("init:");
		expect(source.split("\n").filter((l) => /^ {2}n\d+\[/.test(l))).toHaveLength(plan.nodes.length);
	});

	it("renders a PNG, not the text fallback", async () => {
		const picture = await renderer.renderPlan(plan, statuses);
		expect(picture.error).toBeUndefined();
		expect(picture.png?.subarray(1, 4).toString("latin1")).toBe("PNG");
	});
});
