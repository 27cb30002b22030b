/**
 * The `/lesson` commands' contract, once for every platform that has them (Discord and Slack; the terminal has
 * no commands): each command's reply reaches the person who ran it privately, admin-only commands refuse
 * members and serve admins, an unknown subcommand gets help, and forget-me's confirm is a card whose button
 * routes like any card's. Each platform runs over its fake (real discord.js / real Bolt over HTTP), with the
 * real tutor and learning service on SQLite files.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDiscordAdapter, type DiscordAdapter } from "../../src/adapters/discord/index.ts";
import { parseDiscordCommand } from "../../src/adapters/discord/lesson-command.ts";
import { parseLessonCommand } from "../../src/adapters/slack/command-parse.ts";
import { createMemoryStateStore } from "../../src/agent/index.ts";
import { silentLogger } from "../../src/core/contracts/logger.ts";
import { type FakeDiscord, type FakeUser, startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { type FakeSlack, startFakeSlack } from "../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../testkit/model-stream.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { type LearnerBackend, openLearnerBackend, testClock } from "../fixtures/profile-stack.ts";
import { customIds } from "./discord/helpers.ts";
import { type Running, startAdapter } from "./slack/harness.ts";

/** What a command said back, as the platform delivered it. */
interface Delivered {
	text: string;
	/** Seen by the person who ran the command only. */
	privateTo: string | undefined;
	/** The ids of its buttons (a card's). */
	controls: string[];
	/** The names of the files that reached that person privately (with the reply, or in their DM). */
	files: string[];
}

/** A platform under the contract: its two people, and a way to run `/lesson …` and click a reply's button. */
interface Platform {
	member: string;
	admin: string;
	/** Run `/lesson <sub> …` as `who`; `options` as named options (Discord) or words after the subcommand (Slack). */
	run(who: string, sub: string | undefined, options?: Record<string, string | number | boolean>): Promise<Delivered>;
	/** Click a button of the last reply to `who`; the private notice it brings. */
	click(who: string, control: string): Promise<Delivered>;
	close(): Promise<void>;
}

const clock = testClock();
const model = () => new MockLanguageModelV3({ doStream: (options) => scriptedModel([]).doStream(options) });

async function onDiscord(): Promise<Platform> {
	const dir = mkdtempSync(join(tmpdir(), "lh-contract-d-"));
	const fake: FakeDiscord = await startFakeDiscord();
	const backend: LearnerBackend = await openLearnerBackend(dir, model(), clock);
	const adapter: DiscordAdapter = createDiscordAdapter({
		tutor: backend.tutor,
		renderer: stubRenderer(undefined),
		logger: silentLogger,
		state: createMemoryStateStore(),
		learning: { learning: backend.learning },
		config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
	});
	await adapter.start();
	const users: Record<string, FakeUser> = {
		[fake.users.learner.id]: fake.users.learner,
		[fake.users.admin.id]: fake.users.admin,
	};
	const userOf = (id: string) => users[id] ?? fake.users.other;
	let lastReply = new Map<string, string>();
	const deliveredOf = (id: string | undefined, what: string) =>
		fake
			.waitFor(() => {
				const m = id ? fake.messages.get(id) : undefined;
				return m && (m.content !== "" || m.attachments.length > 0 || m.components.length > 0) ? m : undefined;
			}, what)
			.then((m) => ({
				text: m.content,
				privateTo: m.visibleTo,
				controls: customIds(m),
				files: m.attachments.map((a) => a.filename),
				id: m.id,
			}));
	return {
		member: fake.users.learner.id,
		admin: fake.users.admin.id,
		async run(who, sub, options) {
			const it = fake.slash({
				user: userOf(who),
				channelId: fake.ids.general,
				...(sub !== undefined ? { subcommand: sub } : {}),
				...(options ? { options } : {}),
			});
			const m = await fake.waitFor(() => it.originalMessageId, `the reply to ${sub}`);
			const delivered = await deliveredOf(m, `the reply to ${sub}`);
			lastReply = new Map([[who, delivered.id]]);
			return delivered;
		},
		async click(who, control) {
			const before = fake.ephemeralsFor(userOf(who)).length;
			fake.click({ user: userOf(who), messageId: lastReply.get(who) ?? "", customId: control });
			const m = await fake.waitFor(() => fake.ephemeralsFor(userOf(who))[before], "the click's notice");
			return { text: m.content, privateTo: m.visibleTo, controls: customIds(m), files: [] };
		},
		async close() {
			await adapter.stop();
			await backend.close();
			await fake.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

async function onSlack(): Promise<Platform> {
	const dir = mkdtempSync(join(tmpdir(), "lh-contract-s-"));
	const fake: FakeSlack = await startFakeSlack({
		users: [
			{ id: "U1", name: "ada" },
			{ id: "UADMIN", name: "root", is_admin: true },
		],
	});
	const backend = await openLearnerBackend(dir, model(), clock);
	const running: Running = await startAdapter(fake, {
		tutor: backend.tutor,
		renderer: stubRenderer(undefined),
		state: createMemoryStateStore(),
		learning: { learning: backend.learning },
	});
	const actor = (who: string) => ({ user: who, name: who === "U1" ? "ada" : "root", channel: "C1" });
	/** Everything that reached `who` privately so far: command replies, ephemeral messages, files in their DM. */
	const seen = (who: string) => [
		...fake
			.callsTo("response_url")
			.map((c) => ({ call: c, to: c.params.response_type === "ephemeral" ? who : undefined })),
		...fake
			.callsTo("chat.postEphemeral")
			.filter((c) => c.params.user === who)
			.map((c) => ({ call: c, to: who })),
	];
	const blocksOf = (blocks: unknown) =>
		((blocks ?? []) as Array<{ type: string; elements?: Array<{ action_id?: string }> }>)
			.filter((b) => b.type === "actions")
			.flatMap((b) => (b.elements ?? []).map((e) => String(e.action_id)));
	const next = async (who: string, before: number, uploads: number, what: string): Promise<Delivered> => {
		const got = await fake.waitFor(() => seen(who)[before], what);
		return {
			text: String(got.call.params.text ?? ""),
			privateTo: got.to,
			controls: blocksOf(got.call.params.blocks),
			files: fake.uploads
				.slice(uploads)
				.filter((u) => u.channelId === `D${who}`)
				.map((u) => u.filename),
		};
	};
	return {
		member: "U1",
		admin: "UADMIN",
		async run(who, sub, options) {
			const before = seen(who).length;
			const uploads = fake.uploads.length;
			const words = [
				sub ?? "",
				...Object.values(options ?? {}).map((v) => (typeof v === "boolean" ? (v ? "on" : "off") : String(v))),
			];
			await running.sender.command("/lesson", words.join(" ").trim(), actor(who));
			return next(who, before, uploads, `the reply to ${sub}`);
		},
		async click(who, control) {
			const before = seen(who).length;
			// A private message in the channel (not a thread), as Slack shows an ephemeral one.
			await running.sender.action(actor(who), running.sender.nextTs(), { action_id: control });
			return next(who, before, fake.uploads.length, "the click's notice");
		},
		async close() {
			await running.adapter.stop();
			await backend.close();
			await fake.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
}

describe.each([
	["Discord", onDiscord],
	["Slack", onSlack],
] as const)("/lesson commands on %s", { timeout: 60_000 }, (_, open) => {
	let p: Platform;
	beforeAll(async () => {
		p = await open();
	});
	afterAll(async () => {
		await p?.close();
	});

	it("answers help, and help after an unknown or missing subcommand, privately", async () => {
		for (const reply of [await p.run(p.member, "help"), await p.run(p.member, undefined)]) {
			expect(reply.text).toContain("/lesson start");
			// What there is between lessons, on every platform: review, progress, reminders, forget-me.
			for (const sub of ["review", "progress", "remind", "forget-me"]) expect(reply.text).toContain(`/lesson ${sub}`);
			expect(reply.privateTo).toBe(p.member);
		}
	});

	it("gives every member's command its reply privately", async () => {
		const cases: Array<[string, Record<string, string | number | boolean> | undefined, RegExp]> = [
			["start", { topic: " " }, /^Give the lesson a topic/],
			["end", undefined, /^There is no lesson here/],
			["status", undefined, /^There is no lesson here/],
			["review", undefined, /^Nothing|No lessons|Take a lesson/],
			["progress", undefined, /./],
			["remind", { on: true }, /^Take a lesson first/],
		];
		for (const [sub, options, expected] of cases) {
			const reply = await p.run(p.member, sub, options);
			expect(reply.text, sub).toMatch(expected);
			expect(reply.privateTo, sub).toBe(p.member);
		}
	});

	it("refuses members the admin commands and serves admins, privately", async () => {
		for (const sub of ["config", "usage", "report", "retention"]) {
			const refused = await p.run(p.member, sub);
			expect(refused.text, sub).toMatch(/^Only admins/);
			expect(refused.privateTo, sub).toBe(p.member);
			const served = await p.run(p.admin, sub);
			expect(served.text, sub).not.toMatch(/^Only admins/);
			expect(served.privateTo, sub).toBe(p.admin);
		}
		expect((await p.run(p.admin, "config")).text).toMatch(/Lessons here/);
		expect((await p.run(p.admin, "usage")).text).toMatch(/Tutor usage/);
		expect((await p.run(p.admin, "report")).files.some((f) => f.endsWith(".csv"))).toBe(true);
	});

	it("asks forget-me's confirm with a card whose button deletes, privately", async () => {
		const ask = await p.run(p.member, "forget-me");
		expect(ask.privateTo).toBe(p.member);
		expect(ask.controls).toEqual(["lh:pick:lh-forget-me:0"]);
		const done = await p.click(p.member, "lh:pick:lh-forget-me:0");
		expect(done.text).toMatch(/^There was nothing stored about you|^Done: your profile/);
		expect(done.privateTo).toBe(p.member);
	});
});

describe("parsing into the one command type", () => {
	const discordInteraction = (sub: string | null) =>
		({ options: { getSubcommand: () => sub } }) as unknown as Parameters<typeof parseDiscordCommand>[0];

	it("turns an unknown subcommand into help naming it, on both platforms", () => {
		expect(parseDiscordCommand(discordInteraction("dance"), "en")).toEqual({ kind: "help", unknown: "dance" });
		expect(parseLessonCommand("dance")).toEqual({ kind: "help", unknown: "dance" });
	});
});
