/**
 * The stack the Discord end-to-end tests run: the fake Discord, the real
 * engine on a scripted MockLanguageModelV3, the real SQLite store (temp dir),
 * the real renderer (Chromium), and the adapter on a real discord.js client.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { MockLanguageModelV3 } from "ai/test";
import { afterAll, beforeAll } from "vitest";
import {
	createDiscordAdapter,
	type DiscordAdapter,
	type DiscordAdapterConfig,
} from "../../../src/adapters/discord/index.ts";
import type { BudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import { openStateStore, type StateStore } from "../../../src/agent/index.ts";
import { createSessionStore } from "../../../src/agent/store/session-store.ts";
import { createTutor, type TutorOptions } from "../../../src/agent/tutor.ts";
import type { TutorEvent } from "../../../src/core/contracts/events.ts";
import { type LogFields, type Logger, silentLogger } from "../../../src/core/contracts/logger.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import { createPlanRenderer, type PlanRenderer } from "../../../src/render/index.ts";
import {
	type FakeDiscord,
	type FakeMessage,
	messageControls,
	startFakeDiscord,
} from "../../../testkit/fakes/discord.ts";
import { stubRenderer } from "../../../testkit/stub-renderer.ts";

/** One scripted model reply: text and/or tool calls. */
export type { ScriptedReply as Reply } from "../../../testkit/model-stream.ts";
export { scriptedModel } from "../../../testkit/model-stream.ts";

/** A logger that keeps every entry (tests assert on errors). */
export interface RecordingLogger extends Logger {
	entries: Array<{ level: string; fields: LogFields; message?: string }>;
	errors(): Array<{ fields: LogFields; message?: string }>;
}

/** A recording logger. */
export function recordingLogger(): RecordingLogger {
	const entries: RecordingLogger["entries"] = [];
	const make = (bindings: LogFields): RecordingLogger => {
		const log = (level: string) => (fields: LogFields, message?: string) =>
			void entries.push({ level, fields: { ...bindings, ...fields }, ...(message !== undefined ? { message } : {}) });
		return {
			entries,
			debug: log("debug"),
			info: log("info"),
			warn: log("warn"),
			error: log("error"),
			child: (more) => make({ ...bindings, ...more }),
			errors: () => entries.filter((e) => e.level === "error"),
		};
	};
	return make({});
}

/** Everything one end-to-end test needs, and its teardown. */
export interface Stack {
	fake: FakeDiscord;
	dir: string;
	/** The sessions' store (SQLite in `dir`). */
	storeUrl: string;
	tutor: Tutor;
	adapter: DiscordAdapter;
	renderer: PlanRenderer;
	state: StateStore;
	logger: RecordingLogger;
	events: TutorEvent[];
	/** Stop the adapter and the tutor, then bring both back on the same files (a process restart). */
	restart(): Promise<void>;
	close(): Promise<void>;
}

/** Start the stack on a fake Discord with a scripted model (`png`: a stub renderer drawing that PNG instead of Chromium). */
export async function startStack(
	fake: FakeDiscord,
	model: MockLanguageModelV3 | TutorOptions["model"],
	options: { png?: Buffer; config?: Partial<DiscordAdapterConfig>; budgets?: BudgetRouter } = {},
): Promise<Stack> {
	const dir = mkdtempSync(join(tmpdir(), "lh-discord-"));
	const logger = recordingLogger();
	const renderer = options.png
		? stubRenderer(options.png)
		: createPlanRenderer({ executablePath: "/usr/bin/chromium" });
	// Warmed before any lesson, as `learnharness start` does: the first picture is not a cold Chromium launch.
	if (!options.png && (await renderer.warm?.()) !== "ready") throw new Error("chromium could not be warmed");
	const storeUrl = `sqlite://${join(dir, "lh.sqlite")}`;
	const events: TutorEvent[] = [];
	const open = async () => {
		const store = await createSessionStore(storeUrl);
		const tutor = createTutor({
			model,
			store,
			maxRetries: 0,
			...(options.budgets ? { budget: options.budgets.budget } : {}),
		});
		tutor.subscribe((e) => void events.push(e));
		await tutor.resume();
		const state = openStateStore(`sqlite://${join(dir, "discord.sqlite")}`, "discord");
		const adapter = createDiscordAdapter({
			tutor,
			renderer,
			logger,
			state,
			...(options.budgets ? { budgets: options.budgets } : {}),
			config: {
				token: fake.token,
				apiUrl: fake.apiUrl,
				guildId: fake.guild.id,
				readyTimeoutMs: 10_000,
				...options.config,
			},
		});
		await adapter.start();
		return { tutor, state, adapter };
	};
	let parts = await open();
	const shut = async () => {
		await parts.adapter.stop();
		await parts.tutor.close();
		await parts.state.close();
	};
	const stack: Stack = {
		fake,
		dir,
		storeUrl,
		logger,
		renderer,
		events,
		get tutor() {
			return parts.tutor;
		},
		get adapter() {
			return parts.adapter;
		},
		get state() {
			return parts.state;
		},
		async restart() {
			await shut();
			parts = await open();
		},
		async close() {
			await shut();
			await renderer.close();
			rmSync(dir, { recursive: true, force: true });
		},
	};
	return stack;
}

/**
 * A handle that forwards to an object made later (in beforeAll), so a test file can name
 * it at the top level; using it before then throws.
 */
function startedLater<T extends object>(name: string, current: () => T | undefined): T {
	const target = (): T => {
		const value = current();
		if (value === undefined) throw new Error(`${name} is started in beforeAll`);
		return value;
	};
	return new Proxy({} as T, {
		get(_, key) {
			const real = target();
			const value: unknown = Reflect.get(real, key, real);
			return typeof value === "function" ? value.bind(real) : value;
		},
		set: (_, key, value) => Reflect.set(target(), key, value),
		has: (_, key) => Reflect.has(target(), key),
	});
}

/** The fake Discord and the stack on `model` for one test file: started before its tests, closed after. */
export function useStack(
	model: MockLanguageModelV3,
	options: Parameters<typeof startStack>[2] = {},
): { fake: FakeDiscord; stack: Stack } {
	let fake: FakeDiscord | undefined;
	let stack: Stack | undefined;
	beforeAll(async () => {
		fake = await startFakeDiscord();
		stack = await startStack(fake, model, options);
	});
	afterAll(async () => {
		await stack?.close();
		await fake?.close();
	});
	return { fake: startedLater("the fake Discord", () => fake), stack: startedLater("the stack", () => stack) };
}

/** The custom ids of a message's components. */
export function customIds(message: FakeMessage | undefined): string[] {
	return message ? messageControls(message).map((c) => (typeof c.custom_id === "string" ? c.custom_id : "")) : [];
}

/** Wait for a message in a channel carrying a component whose id starts with `prefix`. */
export function waitForControl(
	fake: FakeDiscord,
	channelId: string,
	prefix: string,
	timeoutMs = 15_000,
): Promise<FakeMessage> {
	return fake.waitFor(
		() => fake.channelMessages(channelId).find((m) => customIds(m).some((id) => id.startsWith(prefix))),
		`a message with control ${prefix}`,
		timeoutMs,
	);
}

/** Wait until the interaction got its first response. */
export function waitForAck(fake: FakeDiscord, token: string, timeoutMs = 10_000) {
	return fake.waitFor(
		() => {
			const it = fake.interactions.get(token);
			return it?.responseType !== undefined ? it : undefined;
		},
		`the ack of interaction ${token}`,
		timeoutMs,
	);
}

/** The adapter over a fresh fake Discord with a stand-in tutor (no engine) on `state`, started. */
export async function startOnFake(
	tutor: Tutor,
	state: StateStore,
): Promise<{ fake: FakeDiscord; adapter: DiscordAdapter }> {
	const fake = await startFakeDiscord();
	const adapter = createDiscordAdapter({
		tutor,
		renderer: stubRenderer(undefined),
		logger: silentLogger,
		state,
		config: { token: fake.token, apiUrl: fake.apiUrl, guildId: fake.guild.id, readyTimeoutMs: 10_000 },
	});
	await adapter.start();
	return { fake, adapter };
}
