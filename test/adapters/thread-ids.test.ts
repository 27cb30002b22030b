/**
 * The port contract every platform keeps for thread ids (the lessons' session ids):
 * `<platform>:<parts>` round-trips through its port's encode and decode, a port refuses
 * another platform's ids and anything malformed, and encode refuses parts that would
 * not round-trip.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeDiscordThreadId, encodeDiscordThreadId } from "../../src/adapters/discord/index.ts";
import { decodeSlackThreadId, encodeSlackThreadId } from "../../src/adapters/slack/index.ts";
import { decodeTerminalThreadId, encodeTerminalThreadId } from "../../src/adapters/terminal/index.ts";
import { communityOf } from "../../src/core/contracts/thread-id.ts";

const part = fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/);

const codecs = [
	{
		name: "discord",
		address: fc.record({ guildId: part, threadId: part }),
		encode: encodeDiscordThreadId,
		decode: decodeDiscordThreadId,
		sample: ["discord:1:2", { guildId: "1", threadId: "2" }],
		community: (a: { guildId: string }) => a.guildId,
		bad: ["discord:1", "discord:1:2:3", "discord:a b:2"],
	},
	{
		name: "slack",
		address: fc.record({ teamId: part, channelId: part, threadTs: part }),
		encode: encodeSlackThreadId,
		decode: decodeSlackThreadId,
		sample: ["slack:T1:C2:1700000000.000100", { teamId: "T1", channelId: "C2", threadTs: "1700000000.000100" }],
		community: (a: { teamId: string }) => a.teamId,
		bad: ["slack:T:C", "slack:T:C:1:2"],
	},
	{
		name: "terminal",
		address: part,
		encode: encodeTerminalThreadId,
		decode: decodeTerminalThreadId,
		sample: ["terminal:ab12", "ab12"],
		community: () => "",
		bad: ["terminal:", "terminal:a b", "terminal:a:b"],
	},
] as const;

describe.each(codecs)("$name thread ids", (codec) => {
	const encode = codec.encode as (a: unknown) => string;
	const decode = codec.decode as (id: string) => unknown;

	it("round-trip", () => {
		fc.assert(
			fc.property(codec.address as fc.Arbitrary<unknown>, (a) => {
				expect(decode(encode(a))).toEqual(a);
			}),
		);
		expect(decode(codec.sample[0])).toEqual(codec.sample[1]);
	});

	it("refuse other platforms' ids and malformed ones", () => {
		const others = codecs.filter((c) => c.name !== codec.name).map((c) => c.sample[0]);
		for (const bad of [...others, ...codec.bad, "", "irc:x"]) expect(decode(bad)).toBeUndefined();
		expect(() =>
			encode(codec.name === "terminal" ? "a:b" : { ...(codec.sample[1] as object), threadTs: "a b", threadId: "a b" }),
		).toThrow(/Invalid thread id part/);
	});
});

describe("the community of a thread id", () => {
	it.each(codecs)(
		"is read by the format's owner (which the controller, the budgets and the profile use) as $name's port encoded it",
		(codec) => {
			fc.assert(
				fc.property(codec.address as fc.Arbitrary<unknown>, (a) => {
					const encoded = (codec.encode as (a: unknown) => string)(a);
					const community = (codec.community as (a: unknown) => string)(a);
					expect(communityOf(encoded)).toBe(community);
				}),
			);
		},
	);
});
