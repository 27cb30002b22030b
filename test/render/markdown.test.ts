import { describe, expect, it } from "vitest";
import { markdownToMrkdwn } from "../../src/render/index.ts";

describe("markdownToMrkdwn", () => {
	it("converts markdown formatting and links", () => {
		const out = markdownToMrkdwn("**bold** and [docs](https://example.com/a) and `code`");
		expect(out).toContain("*bold*");
		expect(out).toContain("<https://example.com/a|docs>");
		expect(out).toContain("`code`");
	});

	it("never lets model text mention anyone or inject Slack syntax", () => {
		const out = markdownToMrkdwn(
			"hi <!channel> <@U123> <!subteam^S1> & <https://evil.example|click>\n\n```\n<!here>\n```",
		);
		expect(out).not.toMatch(/<!|<@/);
		expect(out).toContain("&lt;!channel&gt;");
		expect(out).toContain("&amp;");
	});

	it("keeps block quotes and drops slackify's hard-break backslashes", () => {
		expect(markdownToMrkdwn("> quoted")).toBe("> quoted");
		expect(markdownToMrkdwn("a  \nb")).toBe("a\nb");
		expect(markdownToMrkdwn("   ")).toBe("");
	});
});
