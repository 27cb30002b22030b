/**
 * Slack's text decoded at the edge: the escapes Slack applies to `&`, `<`, `>` and its control sequences
 * (links, channels, mentions, special mentions, dates), as its formatting reference shows them; and a
 * message typed through the fake (escaped as Slack escapes it) reaches the tutor as the person wrote it.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { slackTextToPlain, unescapeSlack } from "../../../src/adapters/slack/text.ts";
import { createMemoryStateStore } from "../../../src/agent/index.ts";
import { type FakeSlack, startFakeSlack } from "../../../testkit/fakes/slack.ts";
import { slackEscape, slackWire } from "../../../testkit/fixtures/slack/requests.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";
import { FakeTutor } from "../lesson/fake-tutor.ts";
import { type Running, startAdapter } from "./harness.ts";

describe("slackTextToPlain", () => {
	it("undoes Slack's three escapes, once (an escaped escape stays as typed)", () => {
		expect(unescapeSlack("1/2 &lt; 3/4 &amp;&amp; x &gt; 3")).toBe("1/2 < 3/4 && x > 3");
		expect(unescapeSlack("&amp;lt; is how you write &lt;")).toBe("&lt; is how you write <");
		expect(slackTextToPlain(slackEscape("C++ & Rust <3 > Go"))).toBe("C++ & Rust <3 > Go");
	});

	it("makes control sequences readable: links, channels, special mentions, dates; user mentions dropped", () => {
		const cases: [string, string][] = [
			["see <https://example.com/a?b=1&amp;c=2|the notes>", "see the notes (https://example.com/a?b=1&c=2)"],
			["see <https://example.com>", "see https://example.com"],
			["mail <mailto:ada@example.com|ada@example.com>", "mail ada@example.com"],
			["in <#C024BE7LR|general> please", "in #general please"],
			["in <#C024BE7LR>", "in #C024BE7LR"],
			["<!here> quiz time", "@here quiz time"],
			["<!subteam^SAZ94GDB8|@study-group> hi", "@study-group hi"],
			["due <!date^1392734382^{date_short}|Feb 18, 2014 6:39 AM PST>", "due Feb 18, 2014 6:39 AM PST"],
			["<@U0BOT>  fractions <@U12|bob> now", "fractions now"],
		];
		for (const [sent, read] of cases) expect(slackTextToPlain(sent)).toBe(read);
		expect(slackTextToPlain("hi <@U12|bob>", { mentions: "keep" })).toBe("hi @bob");
	});

	it("reads back what the fake sends for typed text (Slack's escapes, its own control sequences kept)", () => {
		expect(slackWire("x > 3 & y < 2, see <#C1|general>")).toBe("x &gt; 3 &amp; y &lt; 2, see <#C1|general>");
		expect(slackWire("see <https://e.com/a?b=1&c=2|the notes> <3")).toBe(
			"see <https://e.com/a?b=1&amp;c=2|the notes> &lt;3",
		);
		expect(slackWire("<@U0BOT> C++ & Rust")).toBe("<@U0BOT> C++ &amp; Rust");
		for (const typed of ["1/2 < 3/4 && x > 3", "a <b> c", "<<>>", "&lt; is how you write <"])
			expect(slackTextToPlain(slackWire(typed))).toBe(typed);
	});

	it("keeps text with a stray < or > (never sent by Slack, but never lost)", () => {
		expect(slackTextToPlain("a < b")).toBe("a < b");
		expect(slackTextToPlain("a > b")).toBe("a > b");
	});

	it("is linear on hostile input", () => {
		const hostile = `${"<".repeat(50_000)}${"&amp;".repeat(50_000)}${"<@U1|".repeat(20_000)}`;
		const started = process.cpuUsage();
		slackTextToPlain(hostile);
		const used = process.cpuUsage(started);
		expect((used.user + used.system) / 1000).toBeLessThan(1_000);
	});
});

describe("a message typed in a Slack lesson thread", { timeout: 20_000 }, () => {
	let fake: FakeSlack;
	let tutor: FakeTutor;
	let running: Running;
	beforeAll(async () => {
		fake = await startFakeSlack({ users: [{ id: "U1", name: "ada" }] });
		tutor = new FakeTutor();
		running = await startAdapter(fake, { tutor, renderer: stubRenderer(undefined), state: createMemoryStateStore() });
	});
	afterAll(async () => {
		await running?.adapter.stop();
		await fake?.close();
	});

	it("reaches the tutor as the learner typed it", async () => {
		// Typed as "x > 3 & y < 2, see #general", the channel picked from Slack's list: the fake sends it as Slack
		// does, "x &gt; 3 &amp; y &lt; 2, see <#C1|general>".
		const text = "x > 3 & y < 2, see <#C1|general>";
		const ts = running.sender.nextTs();
		await running.sender.event({
			type: "message",
			user: "U1",
			text,
			ts,
			thread_ts: "1700000000.000100",
			channel: "C1",
		});
		const handled = await fake.waitFor(
			() => tutor.handled.find((h) => h.event.type === "message"),
			"the typed message at the tutor",
		);
		expect(handled.event).toMatchObject({ type: "message", text: "x > 3 & y < 2, see #general" });
	});

	it("a /lesson start topic reaches the tutor as typed", async () => {
		await running.sender.command("/lesson", "start C++ & Rust <templates>", { user: "U1", channel: "C1" });
		const started = await fake.waitFor(() => tutor.started[0], "the started lesson");
		expect(started.topic).toBe("C++ & Rust <templates>");
	});
});
