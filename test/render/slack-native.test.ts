/**
 * The Slack-only renderings: an explanation as chunks for chat streaming (paragraphs, within markdown_text's
 * 12,000 characters, Slack's control sequences inert; nothing for cards with pictures or long code, or that are
 * not explanations), and the App Home view (type home, within Block Kit's limits however many topics).
 */

import { describe, expect, it } from "vitest";
import { type Card, slackHomeView, toSlackStream } from "../../src/render/index.ts";
import { blockProblems } from "../../testkit/fixtures/slack/limits.ts";

const explain = (body: string, extra: Partial<Extract<Card, { kind: "explain" }>> = {}): Card => ({
	kind: "explain",
	toolCallId: "e1",
	body,
	...extra,
});

describe("toSlackStream", () => {
	it("sends the lead, the heading and the body in paragraph chunks, each within markdown_text's limit", () => {
		const body = Array.from({ length: 12 }, (_, i) => `Paragraph ${i}. ${"word ".repeat(150)}`).join("\n\n");
		const chunks = toSlackStream(explain(body, { title: "Recap", role: "recap", lead: "Let's sum up." })) ?? [];
		expect(chunks.length).toBeGreaterThan(3);
		expect(chunks[0]).toMatch(/^Let's sum up\.\n\n\*\*Recap\*\*/);
		for (const c of chunks) expect(c.length).toBeLessThanOrEqual(12_000);
		const all = chunks.join("");
		for (let i = 0; i < 12; i++) expect(all).toContain(`Paragraph ${i}.`);
		expect(chunks.slice(1).every((c) => c.startsWith("\n\n"))).toBe(true);
	});

	it("makes Slack's mentions and links inert", () => {
		const all = (toSlackStream(explain("Hi <!here>, <@U1> and <#C1|general>; 1 < 2.")) ?? []).join("");
		expect(all).not.toMatch(/<[!@#]/);
		expect(all).toContain("1 < 2.");
	});

	it("does not stream what the normal post shows better: pictures, long code, other cards", () => {
		const picture = {
			kind: "image" as const,
			filename: "f.png",
			data: Buffer.from([1]),
			alt: "x^2",
			width: 1,
			height: 1,
		};
		expect(toSlackStream(explain("A formula", { attachments: [picture] }))).toBeUndefined();
		expect(toSlackStream(explain(`\`\`\`\n${"x = 1\n".repeat(800)}\`\`\``))).toBeUndefined();
		expect(toSlackStream({ kind: "text", tone: "plain", text: "hello" })).toBeUndefined();
	});
});

describe("slackHomeView", () => {
	const topic = (n: number) => ({ topic: `topic ${n}`, learned: 2, shaky: 1, notYet: 3, due: n % 2 });

	it("shows the due reviews with Review now, and the topics, within 100 blocks however many there are", () => {
		const view = slackHomeView({
			topics: Array.from({ length: 500 }, (_, i) => topic(i)),
			due: 4,
			reviewActionId: "lh-slack:home-review",
		});
		expect(view.type).toBe("home");
		expect(blockProblems(view.blocks, 100)).toEqual([]);
		const text = JSON.stringify(view);
		expect(text).toContain("4 ideas are due for review");
		expect(text).toContain("lh-slack:home-review");
		expect(text).toContain("topic 0: 2 learned, 1 shaky, 3 not yet");
		expect(text).toContain("and 470 more topics");
	});

	it("says when the next review is due, in the member's language, and escapes topic names", () => {
		const view = slackHomeView({
			topics: [{ topic: "<!channel> & co", learned: 1, shaky: 0, notYet: 0, due: 0 }],
			due: 0,
			whenNext: "in 3 days",
			reviewActionId: "x",
			locale: "de",
		});
		const text = JSON.stringify(view);
		expect(text).toContain("Nichts ist zur Wiederholung fällig. Als Nächstes: in 3 days.");
		expect(text).not.toContain('"x"');
		expect(text).toContain("&lt;!channel&gt; &amp; co");
	});
});
