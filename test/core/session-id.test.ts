import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeSessionId, encodeSessionId, type SessionAddress } from "../../src/core/session-id.ts";

describe("session ids", () => {
	it("round-trips every platform's address", () => {
		const part = fc.stringMatching(/^[A-Za-z0-9._-]{1,20}$/);
		const address: fc.Arbitrary<SessionAddress> = fc.oneof(
			fc.record({ platform: fc.constant("discord" as const), guildId: part, threadId: part }),
			fc.record({ platform: fc.constant("slack" as const), teamId: part, channelId: part, threadTs: part }),
			fc.record({ platform: fc.constant("terminal" as const), id: part }),
		);
		fc.assert(
			fc.property(address, (a) => {
				expect(decodeSessionId(encodeSessionId(a))).toEqual(a);
			}),
		);
	});

	it("reads the documented forms", () => {
		expect(decodeSessionId("slack:T1:C2:1700000000.000100")).toEqual({
			platform: "slack",
			teamId: "T1",
			channelId: "C2",
			threadTs: "1700000000.000100",
		});
		expect(decodeSessionId("discord:1:2")).toEqual({ platform: "discord", guildId: "1", threadId: "2" });
	});

	it("refuses anything else", () => {
		for (const bad of ["", "discord:1", "slack:T:C", "irc:x", "terminal:a b", "discord:1:2:3", "terminal:"]) {
			expect(decodeSessionId(bad)).toBeUndefined();
		}
		expect(() => encodeSessionId({ platform: "terminal", id: "a:b" })).toThrow(/Invalid session id part/);
	});
});
