/**
 * The sampled warning of the Discord client: one line per key per interval, counting the rest
 * (a rate-limit warning per queued request filled stderr's pipe, and a synchronous log write to
 * a full pipe holds the event loop).
 */

import { describe, expect, it } from "vitest";
import { sampledLog } from "../../../src/adapters/discord/client.ts";

describe("sampledLog", () => {
	it("logs a key once per interval and says how many it left out", () => {
		let now = 0;
		const lines: Array<[string, number]> = [];
		const log = sampledLog(10_000, () => now);
		for (let i = 0; i < 5; i++) log("global", (skipped) => lines.push(["global", skipped]));
		log("route", (skipped) => lines.push(["route", skipped]));
		now = 10_000;
		log("global", (skipped) => lines.push(["global", skipped]));
		expect(lines).toEqual([
			["global", 0],
			["route", 0],
			["global", 4],
		]);
	});
});
