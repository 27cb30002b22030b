/**
 * One lesson, every platform: the same scripted lesson (a probe with a quiz and an ask,
 * the map, quizzes, an explanation whose turn ends in a typed question, a restart in the
 * middle, a check, the map moving on, the recap) runs on the Discord fake, the Slack fake
 * and the terminal, each through its real adapter, the lesson controller, the real engine
 * and SQLite. Each must leave the same transcript and show the learner the same sequence.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createLineSource } from "../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../src/adapters/terminal/playground.ts";
import { createSessionStore, createTutor, openStateStore, type StateStore } from "../../src/agent/index.ts";
import type { Tutor } from "../../src/core/contracts/tutor.ts";
import { startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { startFakeSlack } from "../../testkit/fakes/slack.ts";
import { scriptedModel } from "../../testkit/model-stream.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { DEFAULT_ANSWER } from "../fixtures/drive-controls.ts";
import { EVERY_PLATFORM_STEPS, everyPlatformLesson } from "../fixtures/lesson-script.ts";
import { customIds, startStack } from "./discord/helpers.ts";
import { postedTexts, startAdapter } from "./slack/harness.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const TOPIC = "adding fractions";
const TYPED = EVERY_PLATFORM_STEPS.flatMap((s) => ("type" in s ? [s.type] : []))[0] ?? "";

/** What the learner can see, as tokens in reading order (a post may hold several: a lead and its question). */
const MARKERS: Array<[RegExp, string]> = [
	[/a lesson for|Lesson: adding fractions/, "intro"],
	[/Hi! A few quick questions first\./, "lead: greeting"],
	[/What is 1\/2 \+ 1\/4\?/, "quiz p1"],
	[/What do you already know about fractions\?/, "ask a1"],
	[/Thanks, that's what I needed\./, "text: thanks"],
	[/Adds with common denominators; unsure with unlike ones\./, "assessment"],
	[/Plan picture: |"?filename"?: ?"plan\.png"|files\.completeUploadExternal/, "plan"],
	[/Let's start with a guess\./, "lead: guess"],
	[/Which denominator do 1\/3 and 1\/6 share\?/, "quiz t1"],
	[/Both 3 and 6 divide 6\./, "explain e1"],
	[/Anything you want to ask before we check it\?/, "text: anything"],
	[/Common denominator of 1\/2 and 1\/5\?/, "quiz t2"],
	[/1\/2 \+ 1\/3 = \?/, "quiz t3"],
	[/You learned to find common denominators\./, "recap"],
	[/Lesson complete/, "end"],
];

const tokensOf = (posts: string[]): string[] =>
	posts.flatMap((post) => MARKERS.filter(([re]) => re.test(post)).map(([, token]) => token));

/** The transcript with what differs by platform (ids, clock, message ids) taken out. */
async function transcriptOf(storeUrl: string, sessionId: string, learnerId: string): Promise<string> {
	const store = await createSessionStore(storeUrl);
	try {
		const record = await store.get(sessionId);
		const messages = (record?.messages ?? []).map((m) => ({
			role: m.role,
			parts: m.parts.map((p) => {
				const part = p as Record<string, unknown>;
				if (part.type === "text") return ["text", part.text];
				if (String(part.type).startsWith("tool-"))
					return [part.type, part.toolCallId, part.state, part.input, part.output ?? part.errorText];
				return [part.type];
			}),
		}));
		return JSON.stringify(messages).replaceAll(learnerId, "LEARNER").replaceAll(sessionId, "SESSION");
	} finally {
		await store.close();
	}
}

interface Run {
	visible: string[];
	transcript: string;
}

const dir = mkdtempSync(join(tmpdir(), "lh-every-platform-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function onDiscord(): Promise<Run> {
	const fake = await startFakeDiscord();
	const stack = await startStack(fake, scriptedModel(everyPlatformLesson()), { png: PNG });
	try {
		const learner = fake.users.learner;
		fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: TOPIC } });
		const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const control = (id: string) =>
			fake.waitFor(
				() => {
					const m = fake.channelMessages(thread.id).find((x) => customIds(x).some((c) => c.split(":")[2] === id));
					const cid = m && customIds(m).find((c) => c.split(":")[2] === id);
					return m && cid ? { m, cid } : undefined;
				},
				`the controls of ${id}`,
				15_000,
			);
		for (const step of EVERY_PLATFORM_STEPS) {
			if ("restart" in step) {
				await stack.tutor.idle(sessionId);
				await stack.restart();
			} else if ("type" in step) fake.say({ user: learner, channelId: thread.id, content: step.type });
			else {
				const { m, cid } = await control(step.answer);
				if (cid.startsWith("lh:select:")) fake.select({ user: learner, messageId: m.id, customId: cid, values: ["0"] });
				else if (cid.startsWith("lh:open:")) {
					const opened = fake.click({ user: learner, messageId: m.id, customId: cid });
					await fake.waitFor(() => opened.modal, "the answer modal");
					const text = cid.replace("lh:open:", "lh:text:");
					fake.submitModal({ user: learner, opened, values: { [text]: DEFAULT_ANSWER } });
				} else fake.click({ user: learner, messageId: m.id, customId: cid });
				await fake.waitFor(() => fake.messages.get(m.id)?.editedAt, `the answered ${step.answer}`, 15_000);
			}
		}
		await fake.waitFor(() => stack.events.some((e) => e.type === "ended"), "the end", 15_000);
		await stack.tutor.idle(sessionId);
		await stack.adapter.flush(10_000);
		const posts = fake
			.channelMessages(thread.id)
			.map((m) => `${m.text} ${m.attachments.map((a) => `filename: "${a.filename}"`).join(" ")}`);
		expect(fake.problems()).toEqual([]);
		// The map's attachment carries its alt text: every node with its status, within Discord's 1,024.
		const maps = fake.channelMessages(thread.id).flatMap((m) => m.attachments.filter((a) => a.filename === "plan.png"));
		expect(maps.length).toBeGreaterThan(0);
		for (const map of maps) {
			expect(map.description).toMatch(/^Lesson map, \d+ steps?[,.].*\((current|learned|shaky|not yet|visited)/);
			expect(map.description?.length ?? 0).toBeLessThanOrEqual(1024);
		}
		return { visible: tokensOf(posts), transcript: await transcriptOf(stack.storeUrl, sessionId, learner.id) };
	} finally {
		await stack.close();
		await fake.close();
	}
}

async function onSlack(): Promise<Run> {
	const fake = await startFakeSlack({ users: [{ id: "U1", name: "bob" }] });
	const learner = { user: "U1", name: "bob", channel: "C1" };
	const model = scriptedModel(everyPlatformLesson());
	const storeUrl = `sqlite://${join(dir, "slack.sqlite")}`;
	const renderer = stubRenderer(PNG);
	let parts: { tutor: Tutor; state: StateStore; running: Awaited<ReturnType<typeof startAdapter>> } | undefined;
	const boot = async () => {
		const tutor = createTutor({ model, store: await createSessionStore(storeUrl), maxRetries: 0 });
		const state = openStateStore(storeUrl, "slack");
		await tutor.resume();
		parts = { tutor, state, running: await startAdapter(fake, { tutor, renderer, state }) };
		return parts;
	};
	const shutdown = async () => {
		await parts?.running.adapter.stop();
		await parts?.tutor.close();
		await parts?.state.close();
	};
	try {
		let { running, tutor } = await boot();
		await running.sender.command("/lesson", `start ${TOPIC}`, learner);
		const parent = await fake.waitFor(() => [...fake.messages.values()].find((m) => !m.threadTs), "the parent");
		const sessionId = `slack:${fake.teamId}:C1:${parent.ts}`;
		const control = (id: string) =>
			fake.waitFor(
				() => {
					for (const m of fake.messages.values()) {
						if (m.threadTs !== parent.ts) continue;
						const blocks = (m.blocks ?? []) as Array<{ type?: string; elements?: Array<Record<string, string>> }>;
						const el = blocks
							.filter((b) => b.type === "actions")
							.flatMap((b) => b.elements ?? [])
							.find((e) => e.action_id?.split(":")[2] === id);
						if (el) return { m, el };
					}
					return undefined;
				},
				`the controls of ${id}`,
				15_000,
			);
		for (const step of EVERY_PLATFORM_STEPS) {
			if ("restart" in step) {
				await tutor.idle(sessionId);
				await shutdown();
				({ running, tutor } = await boot());
			} else if ("type" in step)
				await running.sender.event({
					type: "message",
					user: "U1",
					text: step.type,
					ts: running.sender.nextTs(),
					channel: "C1",
					thread_ts: parent.ts,
				});
			else {
				const { m, el } = await control(step.answer);
				// A clicked card is replaced through the click's response_url (chat.update when that fails).
				const cardUpdates = () => fake.calls.filter((c) => c.method === "chat.update" || c.replaced).length;
				const updates = cardUpdates();
				const id = el.action_id ?? "";
				if (el.type === "static_select")
					await running.sender.action(learner, m.ts, { action_id: id, type: "static_select", selected: "0" });
				else if (id.startsWith("lh:open:")) {
					const opens = fake.callsTo("views.open").length;
					await running.sender.action(learner, m.ts, { action_id: id });
					const opened = await fake.waitFor(() => fake.callsTo("views.open")[opens], "the answer modal");
					const text = id.replace("lh:open:", "lh:text:");
					await running.sender.viewSubmission(learner, opened.params.view as Record<string, unknown>, {
						[text]: { [text]: { type: "plain_text_input", value: DEFAULT_ANSWER } },
					});
				} else await running.sender.action(learner, m.ts, { action_id: id });
				await fake.waitFor(() => cardUpdates() > updates, `the answered ${step.answer}`, 15_000);
			}
		}
		await fake.waitFor(
			() => fake.callsTo("chat.update").some((c) => c.params.ts === parent.ts),
			"the parent marked ended",
			15_000,
		);
		await tutor.idle(sessionId);
		// A solo lesson's explanations stream (chat.startStream …): they count as posts too.
		const posts = postedTexts(fake, { threadTs: parent.ts, topLevel: true, uploads: true });
		expect(fake.limitProblems()).toEqual([]);
		// The map's file carries its alt text (not the outline): every node with its status.
		const maps = fake.uploads.filter((u) => u.completed && u.filename === "lesson-plan.png");
		expect(maps.length).toBeGreaterThan(0);
		for (const map of maps) {
			expect(map.altText).toMatch(/^Lesson map, \d+ steps?[,.].*\((current|learned|shaky|not yet|visited)/);
			expect(map.altText?.length ?? 0).toBeLessThanOrEqual(1000); // Slack's alt_txt limit
		}
		return { visible: tokensOf(posts), transcript: await transcriptOf(storeUrl, sessionId, "U1") };
	} finally {
		await shutdown();
		await fake.close();
	}
}

async function onTerminal(): Promise<Run> {
	const storeUrl = `sqlite://${join(dir, "terminal.sqlite")}`;
	const model = scriptedModel(everyPlatformLesson());
	const learner = { id: "terminal-learner", name: "bob" };
	const lines = (steps: readonly (typeof EVERY_PLATFORM_STEPS)[number][]) =>
		steps.map((s) => ("type" in s ? s.type : "answer" in s ? (s.kind === "choice" ? "A" : DEFAULT_ANSWER) : ""));
	const restartAt = EVERY_PLATFORM_STEPS.findIndex((s) => "restart" in s);
	const printed: string[] = [];
	const run = async (input: string[], resume?: string) => {
		const out = new PassThrough();
		const at = printed.push("") - 1;
		out.on("data", (c: Buffer) => {
			printed[at] += c.toString();
		});
		const tutor = createTutor({ model, store: await createSessionStore(storeUrl), maxRetries: 0 });
		await tutor.resume();
		try {
			return await runPlayground({
				tutor,
				renderer: stubRenderer(PNG),
				source: createLineSource(Readable.from(input.map((l) => `${l}\n`)), out),
				output: out,
				topic: TOPIC,
				learner,
				plansDir: join(dir, "plans"),
				...(resume ? { resume } : {}),
			});
		} finally {
			await tutor.close();
		}
	};
	// The restart: the learner pauses at the typed question (the process ends), then resumes in a new one.
	const first = await run([...lines(EVERY_PLATFORM_STEPS.slice(0, restartAt)), "/quit"]);
	expect(first.outcome).toBe("paused");
	const second = await run(lines(EVERY_PLATFORM_STEPS.slice(restartAt + 1)), first.sessionId);
	expect(second.outcome).toBe("ended");
	// A resumed terminal starts on a fresh screen: it shows the map again first (chat threads keep theirs).
	const [before = [], after = []] = printed.map((p) => p.split("\n\n"));
	const session = after.findIndex((b) => b.startsWith("Session terminal:"));
	expect(tokensOf(after.slice(0, session + 2))).toEqual(["plan"]);
	const blocks = [...before, ...after.slice(session + 2)];
	return { visible: tokensOf(blocks), transcript: await transcriptOf(storeUrl, second.sessionId ?? "", learner.id) };
}

describe("one lesson, every platform", { timeout: 120_000 }, () => {
	const runs: Record<string, Run> = {};

	it.each([
		["discord", onDiscord],
		["slack", onSlack],
		["terminal", onTerminal],
	] as const)("runs the scripted lesson on %s", async (name, run) => {
		runs[name] = await run();
		expect(runs[name]?.visible).toEqual([
			"intro",
			"lead: greeting",
			"quiz p1",
			"ask a1",
			"text: thanks",
			"assessment",
			"plan",
			"lead: guess",
			"quiz t1",
			"explain e1",
			"text: anything",
			"quiz t2",
			"plan",
			"quiz t3",
			"recap",
			"end",
		]);
		expect(runs[name]?.transcript).toContain(TYPED);
	});

	it("left the same transcript on every platform", () => {
		expect(Object.keys(runs)).toEqual(["discord", "slack", "terminal"]);
		expect(runs.slack?.transcript).toBe(runs.discord?.transcript);
		expect(runs.terminal?.transcript).toBe(runs.discord?.transcript);
	});
});
