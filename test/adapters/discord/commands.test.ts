/**
 * The /lesson command definition and its registration (guild and global, the
 * application id looked up), and the adapter's small pure pieces: parsing an
 * unknown subcommand, thread names, guild config normalization, refusal
 * notices. What the commands do: contract/commands.test.ts.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
	discordLocalizations,
	lessonCommands,
	registerDiscordCommands,
} from "../../../src/adapters/discord/commands.ts";
import { DEFAULT_GUILD_CONFIG } from "../../../src/adapters/discord/index.ts";
import { parseDiscordCommand } from "../../../src/adapters/discord/lesson-command.ts";
import { DISCORD_STYLE } from "../../../src/adapters/discord/notices.ts";
import { threadName } from "../../../src/adapters/discord/port.ts";
import { normalizeLessonRules as normalizeGuildConfig } from "../../../src/adapters/lesson/lesson-rules.ts";
import { type Refusal, refusalNotice as shared } from "../../../src/adapters/lesson/notices.ts";
import { type FakeDiscord, startFakeDiscord } from "../../../testkit/fakes/discord.ts";
import { commandProblems } from "../../../testkit/fixtures/discord/limits.ts";

let fake: FakeDiscord;
beforeAll(async () => {
	fake = await startFakeDiscord();
});
afterAll(async () => {
	await fake?.close();
});

describe("registering /lesson", () => {
	it("defines one guild-only command whose subcommands and options are within Discord's rules", () => {
		expect(lessonCommands.map((c) => c.name)).toEqual(["lesson"]);
		expect(lessonCommands.flatMap((c) => commandProblems(c))).toEqual([]);
		const command = lessonCommands[0] as { options?: Array<{ name: string }> };
		const subs = (command.options ?? []).map((o) => o.name);
		expect(subs).toEqual([
			"start",
			"end",
			"status",
			"help",
			"config",
			"usage",
			"material",
			"review",
			"progress",
			"report",
			"dashboard",
			"forget-me",
			"remind",
			"retention",
		]);
	});

	it("registers German and Spanish descriptions and a language option with choices", () => {
		const lesson = lessonCommands[0] as { description_localizations?: Record<string, string>; options?: unknown[] };
		expect(lesson.description_localizations?.de).toMatch(/Tutor/);
		expect(Object.keys(lesson.description_localizations ?? {}).sort()).toEqual(["de", "es-419", "es-ES"]);
		const start = (
			lesson.options as Array<{ name: string; options?: Array<{ name: string; choices?: unknown[] }> }>
		).find((o) => o.name === "start");
		expect(start?.options?.find((o) => o.name === "language")?.choices).toEqual([
			{ name: "English", value: "en" },
			{ name: "Deutsch", value: "de" },
			{ name: "Español", value: "es" },
		]);
		for (const text of Object.values(discordLocalizations("cmd.usage"))) expect(text.length).toBeLessThanOrEqual(100);
	});

	it("registers to a guild when a guild id is set, reading the application id from /applications/@me", async () => {
		const result = await registerDiscordCommands({ token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id });
		expect(result).toEqual({ scope: "guild", applicationId: fake.applicationId, commands: 1 });
		expect(fake.calls.some((c) => c.method === "GET" && c.path === "/applications/@me")).toBe(true);
		expect(fake.commands.guild.get(fake.guild.id)?.[0]?.name).toBe("lesson");
	});

	it("registers globally without a guild id", async () => {
		const result = await registerDiscordCommands({
			token: fake.token,
			apiUrl: fake.apiUrl,
			applicationId: fake.applicationId,
		});
		expect(result.scope).toBe("global");
		expect(fake.commands.global.map((c) => c.name)).toEqual(["lesson"]);
	});

	it("throws Discord's error for a bad token", async () => {
		await expect(
			registerDiscordCommands({ token: "nope", apiUrl: fake.apiUrl, guildId: fake.guild.id }),
		).rejects.toThrow(/401|Unauthorized/);
	});
});

describe("adapter pieces", () => {
	it("turns an unknown subcommand into help naming it (Slack's parser too: slack/parse.test.ts)", () => {
		const interaction = {
			options: { getSubcommand: () => "dance", getSubcommandGroup: () => null },
		} as unknown as Parameters<typeof parseDiscordCommand>[0];
		expect(parseDiscordCommand(interaction, "en")).toEqual({ kind: "help", unknown: "dance" });
	});

	it("names threads after the topic: one line, at most 100 characters, never empty", () => {
		expect(threadName("  adding\n fractions ")).toBe("adding fractions");
		expect(threadName("   ")).toBe("Lesson");
		const long = threadName("é".repeat(150));
		expect([...long].length).toBe(100);
		expect(long.endsWith("…")).toBe(true);
	});

	it("normalizes a stored guild config, falling back per field", () => {
		expect(normalizeGuildConfig(undefined, DEFAULT_GUILD_CONFIG)).toEqual(DEFAULT_GUILD_CONFIG);
		expect(
			normalizeGuildConfig({ channels: ["1", 2, "1"], lessonsPerDay: -3, defaultMode: "party" }, DEFAULT_GUILD_CONFIG),
		).toEqual({
			channels: ["1"],
			lessonsPerDay: 0,
			defaultMode: "solo",
			serverTokensPerDay: 0,
			memberTokensPerDay: 0,
			prices: {},
			voteSeconds: 60,
			voteNames: false,
			topics: [],
			membersAddMaterial: false,
		});
	});

	it("turns refusals into notices", () => {
		const refusalNotice = (refusal: Refusal, action: "answer" | "end" = "answer", learnerId?: string) =>
			shared(refusal, DISCORD_STYLE, { action, ...(learnerId ? { learner: `<@${learnerId}>` } : {}) });
		expect(refusalNotice({ code: "not-allowed", message: "x" })).toMatch(/someone else's solo lesson/);
		expect(refusalNotice({ code: "not-allowed", message: "x" }, "answer", "42")).toMatch(/<@42>'s solo lesson/);
		expect(refusalNotice({ code: "not-allowed", message: "x" }, "end")).toMatch(
			/learner or an admin \(Manage Server\)/,
		);
		expect(refusalNotice({ code: "invalid-answer", message: "Pick one of A-C." })).toContain("Pick one of A-C.");
		expect(refusalNotice({ code: "ended", message: "" })).toContain("`/lesson start`");
	});
});
