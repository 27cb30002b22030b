/**
 * The adapter's pure parsers: `/lesson` text, mentions, the modal's private_metadata
 * and its typed answer. Bad input becomes help or undefined, never a throw.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseLessonCommand } from "../../../src/adapters/slack/command-parse.ts";
import { decodeModalMetadata, encodeModalMetadata, typedAnswerOf } from "../../../src/adapters/slack/controls.ts";
import { parentMessage } from "../../../src/adapters/slack/messages.ts";
import { slackTextToPlain } from "../../../src/adapters/slack/text.ts";
import { blockProblems } from "../../../testkit/fakes/slack.ts";

describe("parseLessonCommand", () => {
	it("reads start with flags and a member, and the other subcommands", () => {
		expect(parseLessonCommand("start  the chain rule --group")).toEqual({
			kind: "start",
			topic: "the chain rule",
			mode: "group",
		});
		expect(parseLessonCommand("START <@U123|ada> algebra --solo")).toEqual({
			kind: "start",
			topic: "algebra",
			mode: "solo",
			learner: { id: "U123" },
		});
		// Slack sends `&`, `<`, `>` escaped and links as control sequences: the topic is what was typed.
		expect(parseLessonCommand("start C++ &amp; Rust")).toEqual({ kind: "start", topic: "C++ & Rust" });
		expect(parseLessonCommand("start x &lt; 3 in <#C1|maths>")).toEqual({ kind: "start", topic: "x < 3 in #maths" });
		expect(parseLessonCommand("end")).toEqual({ kind: "end" });
		expect(parseLessonCommand("status")).toEqual({ kind: "status" });
		expect(parseLessonCommand("")).toEqual({ kind: "help" });
		expect(parseLessonCommand("dance")).toEqual({ kind: "help", unknown: "dance" });
	});

	it("reads config changes and names what is wrong", () => {
		expect(parseLessonCommand("config channels <#C1|a> C22 <#C1|a>")).toEqual({
			kind: "config",
			change: { channels: ["C1", "C22"] },
		});
		expect(parseLessonCommand("config channels all")).toEqual({
			kind: "config",
			change: { channels: [] },
		});
		expect(parseLessonCommand("config limit 3")).toEqual({
			kind: "config",
			change: { lessonsPerDay: 3 },
		});
		expect(parseLessonCommand("config mode GROUP")).toEqual({
			kind: "config",
			change: { defaultMode: "group" },
		});
		expect(parseLessonCommand("config limit -1")).toMatchObject({ error: expect.stringMatching(/whole number/) });
		expect(parseLessonCommand("config channels #general")).toMatchObject({
			error: expect.stringMatching(/Name channels/),
		});
		expect(parseLessonCommand("config colour red")).toMatchObject({ error: expect.stringMatching(/Unknown setting/) });
	});

	it("never throws on any text", () => {
		fc.assert(
			fc.property(fc.string({ maxLength: 300 }), (text) => {
				expect(["start", "end", "status", "help", "config"]).toContain(parseLessonCommand(text).kind);
			}),
		);
	});
});

describe("mentions, modal metadata and the parent message", () => {
	it("strips user mentions", () => {
		expect(slackTextToPlain("<@U0BOT>  fractions <@U12|bob> now")).toBe("fractions now");
	});

	it("round-trips the modal metadata and refuses anything else", () => {
		const meta = { sessionId: "slack:T1:C1:1700000000.000100", toolCallId: "call_1" };
		expect(decodeModalMetadata(encodeModalMetadata(meta))).toEqual(meta);
		expect(decodeModalMetadata('{"s":"discord:G:T","t":"x"}')).toBeUndefined();
		expect(decodeModalMetadata("not json")).toBeUndefined();
		expect(decodeModalMetadata(42)).toBeUndefined();
	});

	it("finds the typed answer by its text input id", () => {
		const view = { state: { values: { b1: { "lh:text:call_1": { type: "plain_text_input", value: "  hi " } } } } };
		expect(typedAnswerOf(view)).toEqual({ blockId: "b1", toolCallId: "call_1", text: "  hi " });
		expect(typedAnswerOf({ state: { values: {} } })).toBeUndefined();
	});

	it("keeps the parent message within Block Kit limits whatever the topic", () => {
		fc.assert(
			fc.property(fc.string({ maxLength: 5000 }), fc.constantFrom("solo" as const, "group" as const), (topic, mode) => {
				const body = parentMessage(topic, "U1", mode);
				expect(blockProblems(body.blocks)).toEqual([]);
				expect(body.text.length).toBeLessThanOrEqual(3000);
			}),
		);
		const hostile = parentMessage("<!channel> & <@U9>", "U1", "solo");
		expect(JSON.stringify(hostile)).not.toContain("<!channel>");
		expect(JSON.stringify(hostile)).not.toContain("<@U9>");
	});
});
