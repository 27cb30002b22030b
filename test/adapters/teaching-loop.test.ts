/**
 * The teaching loop on the demo model, on every platform: the same learner plays the
 * built-in demo lesson on the Discord fake, the Slack fake and the terminal playground
 * (real adapters, the controller, the engine, SQLite) and meets each item of the loop:
 * Not sure in the probe, `eight` judged correct for 8, a missed check (Not quite, a Hint,
 * Try again, the right answer), the node of that check shaky on the map, a second look at
 * that node before the recap (a fresh check), and a recall ask before the recap. Asserts on what the learner sees and on the transcript.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { createLineSource } from "../../src/adapters/terminal/input.ts";
import { runPlayground } from "../../src/adapters/terminal/playground.ts";
import { createMemoryStateStore, createSessionStore, createTutor } from "../../src/agent/index.ts";
import { createDemoModel } from "../../src/agent/models/demo-model.ts";
import { startFakeDiscord } from "../../testkit/fakes/discord.ts";
import { startFakeSlack } from "../../testkit/fakes/slack.ts";
import { stubRenderer } from "../../testkit/stub-renderer.ts";
import { customIds, startStack } from "./discord/helpers.ts";
import { controlsOf, postedTexts, startAdapter, textOf } from "./slack/harness.ts";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const TOPIC = "binary search";
const RECALLED = "You halve the range each time";
/** The check the learner misses first (a piece of its question). */
const CHECK = "lo = 2 and hi = 1";
/** The right answer of the missed check: never shown before the learner gets it. */
const MISSED_ANSWER = "5 is not in the list";
/** The fresh check on the shaky node before the recap (a piece of its question). */
const REVISIT = "lo = 0, hi = 8";

type Act = { pick: number } | { type: string } | { help: "hint" | "again" | "not-sure" };
/** A help control's kind in its id (`lh:help:<question>:<kind>`). */
const HELP_KIND = { hint: 0, again: 1, "not-sure": 4 } as const;

/** The learner, the same on every platform: which question (a piece of its text), and what they do. */
const LEARNER: Array<{ q: string; act: Act }> = [
	{ q: "phone book of 1,000 pages", act: { pick: 1 } },
	{ q: "halvings until you reach 1", act: { help: "not-sure" } },
	{ q: "how many items do you check", act: { type: "eight" } },
	{ q: "The middle item is 42", act: { pick: 1 } },
	{ q: "which item do you compare with first", act: { type: "8" } },
	{ q: "lo = 0, hi = 6", act: { pick: 1 } },
	{ q: CHECK, act: { pick: 0 } }, // wrong
	{ q: CHECK, act: { help: "hint" } },
	{ q: CHECK, act: { help: "again" } },
	{ q: CHECK, act: { pick: 1 } }, // right, on the second try with a hint
	{ q: "1,000,000 sorted items", act: { pick: 0 } },
	{ q: "from 1,000,000 to 2,000,000", act: { pick: 0 } },
	{ q: REVISIT, act: { pick: 0 } }, // the shaky node's second look: right
	{ q: "what did you learn about binary search", act: { type: RECALLED } },
];

/** What one platform showed after each move: the question's card, and the messages posted meanwhile. */
interface Seen {
	card: string;
	posted: string;
	/** The card's control ids (Discord, Slack); the terminal prints its choices instead. */
	controls: string[];
}

interface Run {
	seen: Seen[];
	/** The map's alt texts (Discord, Slack) or the printed outlines (terminal), in order, with how many moves came before. */
	maps: Array<{ after: number; text: string }>;
	/** The whole thread (or screen) in reading order. */
	thread: string;
	transcript: ToolPart[];
}

interface ToolPart {
	type: string;
	input: Record<string, unknown>;
	output: Record<string, unknown>;
}

/** The quiz and ask calls of the transcript with their results, and the explains, in order. */
async function transcriptOf(storeUrl: string, sessionId: string): Promise<ToolPart[]> {
	const store = await createSessionStore(storeUrl);
	try {
		const record = await store.get(sessionId);
		return (record?.messages ?? []).flatMap((m) =>
			m.parts.flatMap((p) => {
				const part = p as Record<string, unknown>;
				if (!["tool-quiz", "tool-ask", "tool-explain"].includes(String(part.type))) return [];
				return [
					{
						type: String(part.type),
						input: (part.input ?? {}) as Record<string, unknown>,
						output: (part.output ?? {}) as Record<string, unknown>,
					},
				];
			}),
		);
	} finally {
		await store.close();
	}
}

const dir = mkdtempSync(join(tmpdir(), "lh-teaching-loop-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function onDiscord(): Promise<Run> {
	const fake = await startFakeDiscord();
	const stack = await startStack(fake, createDemoModel(), { png: PNG });
	try {
		const learner = fake.users.learner;
		fake.slash({ user: learner, channelId: fake.ids.general, subcommand: "start", options: { topic: TOPIC } });
		const thread = await fake.waitFor(() => fake.createdThreads()[0], "the lesson thread");
		const sessionId = `discord:${fake.guild.id}:${thread.id}`;
		const settle = async () => {
			await stack.tutor.idle(sessionId);
			await stack.adapter.flush(10_000);
		};
		const mapsAt = () =>
			fake
				.channelMessages(thread.id)
				.flatMap((m) => m.attachments.filter((a) => a.filename === "plan.png").map((a) => a.description ?? ""));
		const maps: Run["maps"] = [];
		const seen: Seen[] = [];
		for (const [n, { q, act }] of LEARNER.entries()) {
			const card = await fake.waitFor(
				() => fake.channelMessages(thread.id).find((m) => m.text.includes(q) && customIds(m).length > 0),
				`the card of "${q}"`,
				15_000,
			);
			const ids = customIds(card);
			const before = fake.channelMessages(thread.id).length;
			const edited = card.editedAt;
			const find = (re: RegExp) => {
				const id = ids.find((c) => re.test(c));
				if (!id) throw new Error(`no control ${re} on "${q}": ${ids.join(", ")}`);
				return id;
			};
			if ("pick" in act)
				fake.click({ user: learner, messageId: card.id, customId: find(new RegExp(`^lh:pick:.*:${act.pick}$`)) });
			else if ("help" in act)
				fake.click({
					user: learner,
					messageId: card.id,
					customId: find(new RegExp(`^lh:help:.*:${HELP_KIND[act.help]}$`)),
				});
			else {
				const open = find(/^lh:open:/);
				const opened = fake.click({ user: learner, messageId: card.id, customId: open });
				await fake.waitFor(() => opened.modal, "the answer modal");
				fake.submitModal({ user: learner, opened, values: { [open.replace("lh:open:", "lh:text:")]: act.type } });
			}
			await fake.waitFor(
				() => fake.messages.get(card.id)?.editedAt !== edited || fake.channelMessages(thread.id).length > before,
				`the answer to "${q}"`,
				15_000,
			);
			await settle();
			seen.push({
				card: fake.messages.get(card.id)?.text ?? "",
				controls: customIds(fake.messages.get(card.id)),
				posted: fake
					.channelMessages(thread.id)
					.slice(before)
					.map((m) => m.text)
					.join("\n"),
			});
			for (const text of mapsAt().slice(maps.length)) maps.push({ after: n + 1, text });
		}
		await fake.waitFor(() => stack.events.some((e) => e.type === "ended"), "the end", 15_000);
		await settle();
		expect(fake.problems()).toEqual([]);
		const posts = fake.channelMessages(thread.id).map((m) => m.text);
		return { seen, maps, thread: posts.join("\n"), transcript: await transcriptOf(stack.storeUrl, sessionId) };
	} finally {
		await stack.close();
		await fake.close();
	}
}

async function onSlack(): Promise<Run> {
	const fake = await startFakeSlack({ users: [{ id: "U1", name: "bob" }] });
	const who = { user: "U1", name: "bob", channel: "C1" };
	const storeUrl = `sqlite://${join(dir, "slack.sqlite")}`;
	const tutor = createTutor({ model: createDemoModel(), store: await createSessionStore(storeUrl), maxRetries: 0 });
	const running = await startAdapter(fake, { tutor, renderer: stubRenderer(PNG), state: createMemoryStateStore() });
	try {
		await running.sender.command("/lesson", `start ${TOPIC}`, who);
		const parent = await fake.waitFor(() => [...fake.messages.values()].find((m) => !m.threadTs), "the parent");
		const sessionId = `slack:${fake.teamId}:C1:${parent.ts}`;
		const inThread = () => [...fake.messages.values()].filter((m) => m.threadTs === parent.ts);
		const latest = (ts: string) => {
			// A clicked card is replaced through the click's response_url; others with chat.update.
			const updates = fake.calls.filter(
				(c) => (c.method === "chat.update" && c.params.ts === ts) || c.replaced?.ts === ts,
			);
			const m = fake.messages.get(ts);
			return updates.length > 0 ? textOf(updates.at(-1)?.params ?? {}) : m ? textOf(m) : "";
		};
		const mapsAt = () =>
			fake.uploads.filter((u) => u.completed && u.filename === "lesson-plan.png").map((u) => u.altText ?? "");
		const maps: Run["maps"] = [];
		const seen: Seen[] = [];
		for (const [n, { q, act }] of LEARNER.entries()) {
			const card = await fake.waitFor(
				() => inThread().find((m) => latest(m.ts).includes(q) && controlsOf(m).length > 0),
				`the card of "${q}"`,
				15_000,
			);
			// The card's controls as last updated.
			const ids = [...latest(card.ts).matchAll(/"action_id":"(lh:[^"]+)"/g)].map((m) => m[1] ?? "");
			const find = (re: RegExp) => {
				const id = ids.find((c) => re.test(c));
				if (!id) throw new Error(`no control ${re} on "${q}": ${ids.join(", ")}`);
				return id;
			};
			// What the thread shows (posts and a solo lesson's streamed explanations), in order.
			const posts = postedTexts(fake).length;
			const cardUpdates = () => fake.calls.filter((c) => c.method === "chat.update" || c.replaced).length;
			const updates = cardUpdates();
			if ("pick" in act)
				await running.sender.action(who, card.ts, { action_id: find(new RegExp(`^lh:pick:.*:${act.pick}$`)) });
			else if ("help" in act)
				await running.sender.action(who, card.ts, {
					action_id: find(new RegExp(`^lh:help:.*:${HELP_KIND[act.help]}$`)),
				});
			else {
				const open = find(/^lh:open:/);
				const opens = fake.callsTo("views.open").length;
				await running.sender.action(who, card.ts, { action_id: open });
				const opened = await fake.waitFor(() => fake.callsTo("views.open")[opens], "the answer modal");
				const text = open.replace("lh:open:", "lh:text:");
				await running.sender.viewSubmission(who, opened.params.view as Record<string, unknown>, {
					[text]: { [text]: { type: "plain_text_input", value: act.type } },
				});
			}
			await fake.waitFor(
				() => cardUpdates() > updates || postedTexts(fake).length > posts,
				`the answer to "${q}"`,
				15_000,
			);
			await tutor.idle(sessionId);
			seen.push({
				card: latest(card.ts),
				controls: [...latest(card.ts).matchAll(/"action_id":"(lh:[^"]+)"/g)].map((m) => m[1] ?? ""),
				posted: postedTexts(fake).slice(posts).join("\n"),
			});
			for (const text of mapsAt().slice(maps.length)) maps.push({ after: n + 1, text });
		}
		await fake.waitFor(
			() => fake.callsTo("chat.update").some((c) => c.params.ts === parent.ts),
			"the parent marked ended",
			15_000,
		);
		await tutor.idle(sessionId);
		expect(fake.limitProblems()).toEqual([]);
		const thread = postedTexts(fake, { threadTs: parent.ts });
		return { seen, maps, thread: thread.join("\n"), transcript: await transcriptOf(storeUrl, sessionId) };
	} finally {
		await running.adapter.stop();
		await tutor.close();
		await fake.close();
	}
}

async function onTerminal(): Promise<Run> {
	const storeUrl = `sqlite://${join(dir, "terminal.sqlite")}`;
	const tutor = createTutor({ model: createDemoModel(), store: await createSessionStore(storeUrl), maxRetries: 0 });
	const out = new PassThrough();
	let screen = "";
	out.on("data", (c: Buffer) => {
		screen += c.toString();
	});
	const HELP_WORDS = { hint: "hint", again: "again", "not-sure": "not sure" } as const;
	const lines = LEARNER.map(({ act }) =>
		"pick" in act ? "ABC"[act.pick] : "help" in act ? HELP_WORDS[act.help] : act.type,
	);
	try {
		const result = await runPlayground({
			tutor,
			renderer: stubRenderer(PNG),
			source: createLineSource(Readable.from(lines.map((l) => `${l}\n`)), out),
			output: out,
			topic: TOPIC,
			learner: { id: "terminal-learner", name: "bob" },
			plansDir: join(dir, "plans"),
		});
		expect(result.outcome).toBe("ended");
		// A terminal cannot edit: the answered state is printed again, after the learner's line (`> …`).
		const moves = screen.split(/^> .*$/m);
		expect(moves.length).toBe(LEARNER.length + 1);
		for (const [i, { q }] of LEARNER.entries()) expect(moves.slice(0, i + 1).join("")).toContain(q);
		const seen: Seen[] = moves.slice(1).map((text) => ({ card: text, posted: text, controls: [] }));
		// The maps: the outline or its caption, after each move.
		const maps = moves.flatMap((text, after) =>
			text.split("\n\n").flatMap((b) => (/^(Lesson map|Now: )/m.test(b) ? [{ after, text: b }] : [])),
		);
		return { seen, maps, thread: screen, transcript: await transcriptOf(storeUrl, result.sessionId ?? "") };
	} finally {
		await tutor.close();
	}
}

describe("the teaching loop on the demo model, every platform", { timeout: 60_000 }, () => {
	const runs: Record<string, Run> = {};
	/** The move that misses the check (its first answer), and the move after which that check is settled. */
	const missed = LEARNER.findIndex(({ q }) => q === CHECK);
	const settled = LEARNER.findLastIndex(({ q }) => q === CHECK) + 1;

	it.each([
		["discord", onDiscord],
		["slack", onSlack],
		["terminal", onTerminal],
	] as const)(
		"%s: Not sure, `eight`, a missed check with Hint and Try again, a shaky node, a recall",
		async (name, run) => {
			const r = await run();
			runs[name] = r;
			const seen = (q: string, k = 0) =>
				r.seen.filter((_, i) => LEARNER[i]?.q.includes(q))[k] ?? { card: "", posted: "", controls: [] };
			const results = r.transcript.filter((p) => p.type === "tool-quiz");
			const resultOf = (q: string) => results.find((p) => String(p.input.question).includes(q))?.output;

			// 1. Not sure in the probe: the card says so; the result is "does not know", not a guess.
			expect(seen("halvings").card).toMatch(/not sure/i);
			expect(resultOf("halvings")).toMatchObject({ correct: false, notSure: true });

			// 2. `eight` for 8 is judged correct.
			expect(seen("how many items").card).toMatch(/correct/i);
			expect(seen("how many items").card).not.toMatch(/not quite|incorrect/i);
			expect(resultOf("how many items")).toMatchObject({ answer: "eight", correct: true });

			// 3. A wrong check: Not quite, no answer shown; a Hint without the answer; Try again; then right.
			const wrong = seen(CHECK, 0);
			expect(wrong.card).toMatch(/Not quite/);
			expect(wrong.card).not.toMatch(/Correct answer/i);
			// Try again, Hint and Show answer, and no choice to click until Try again.
			if (name === "terminal") expect(wrong.card).toMatch(/again.*hint.*show/);
			else
				expect(wrong.controls.map((c) => c.replace(/^lh:(\w+):.*:(\d+)$/, "$1:$2"))).toEqual([
					"help:1",
					"help:0",
					"help:3",
				]);
			const hint = seen(CHECK, 1);
			expect(hint.posted).toMatch(/Hint/);
			expect(hint.posted).not.toContain(MISSED_ANSWER);
			expect(seen(CHECK, 2).card).toMatch(/Second try/i);
			expect(seen(CHECK, 3).card).toMatch(/second try/i);
			expect(resultOf(CHECK)).toMatchObject({
				correct: true,
				attempts: [{ answer: "5 is at index 1", correct: false }],
				hinted: true,
			});

			// 4. After that check, the map shows its node shaky.
			const after = r.maps.filter((m) => m.after >= settled);
			expect(after.length, `a map after the missed check on ${name}`).toBeGreaterThan(0);
			if (name === "terminal") expect(after.map((m) => m.text).join("\n")).toMatch(/~ Shrink the range/);
			else expect(after.map((m) => m.text).join("\n")).toMatch(/Shrink the range \(shaky\)/);
			// …and not before it was missed.
			const before = r.maps.filter((m) => m.after <= missed);
			expect(before.length).toBeGreaterThan(0);
			expect(before.map((m) => m.text).join("\n")).not.toMatch(/shaky\)|~ Shrink/);

			// 5. Before the recap, the shaky node comes back: a fresh check on it, answered right.
			const revisit = results.findIndex((p) => String(p.input.question).includes(REVISIT));
			expect(revisit).toBeGreaterThan(results.findIndex((p) => String(p.input.question).includes(CHECK)));
			expect(results[revisit]?.input).toMatchObject({ type: "check", nodeId: "shrink-range" });
			expect(results[revisit]?.output).toMatchObject({ correct: true });
			expect(r.thread).toMatch(/back to \*?\*?Shrink the range\*?\*?: it was shaky earlier/);

			// 6. The recall ask comes before the recap, and the recap follows the learner's answer.
			const recall = r.transcript.findIndex((p) => p.type === "tool-ask");
			const recap = r.transcript.findIndex((p) => p.type === "tool-explain" && p.input.role === "recap");
			expect(recall).toBeGreaterThan(0);
			expect(recap).toBeGreaterThan(recall);
			expect(r.transcript[recall]?.output).toMatchObject({ answer: RECALLED });
			// On screen: the recall question, then the learner's words (their answer, the tutor's reply), then the recap.
			const asked = r.thread.indexOf("what did you learn about binary search");
			const answered = r.thread.indexOf(RECALLED, asked);
			expect(asked).toBeGreaterThan(-1);
			expect(answered).toBeGreaterThan(asked);
			expect(r.thread.indexOf("Recap", answered)).toBeGreaterThan(answered);
			expect(r.thread.indexOf("Recap")).toBeGreaterThan(asked);
		},
	);

	it("left the same results on every platform", () => {
		expect(Object.keys(runs)).toEqual(["discord", "slack", "terminal"]);
		const outcomes = (r: Run | undefined) =>
			(r?.transcript ?? []).map((p) => {
				const { by: _by, ...rest } = p.output;
				return [p.type, p.input.question ?? p.input.title, rest];
			});
		expect(outcomes(runs.slack)).toEqual(outcomes(runs.discord));
		expect(outcomes(runs.terminal)).toEqual(outcomes(runs.discord));
	});
});
