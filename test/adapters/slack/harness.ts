/**
 * Test harness: the Slack adapter over real Bolt HTTP against the fake Slack, with a
 * tutor (real engine or a fake), a state store and a renderer; plus finders over what the
 * fake recorded (posted cards, their controls).
 */

import type { BudgetRouter } from "../../../src/adapters/lesson/lesson-budget.ts";
import {
	createSlackAdapter,
	type SlackAdapter,
	type SlackAdapterConfig,
	type SlackAdapterOptions,
	type SlackHttpRoute,
} from "../../../src/adapters/slack/index.ts";
import type { StateStore } from "../../../src/agent/index.ts";
import { type Logger, silentLogger } from "../../../src/core/contracts/logger.ts";
import type { Tutor } from "../../../src/core/contracts/tutor.ts";
import type { PlanRenderer } from "../../../src/render/index.ts";
import type { FakeMessage, FakeSlack, SlackSender } from "../../../testkit/fakes/slack.ts";

/** A started adapter and what talks to it. */
export interface Running {
	adapter: SlackAdapter;
	url: string;
	sender: SlackSender;
}

/** Start the adapter over HTTP on a free loopback port. */
export async function startAdapter(
	fake: FakeSlack,
	deps: {
		tutor: Tutor;
		renderer: PlanRenderer;
		state?: StateStore;
		budgets?: BudgetRouter;
		logger?: Logger;
		httpRoutes?: SlackHttpRoute[];
		learning?: SlackAdapterOptions["learning"];
	},
	config: Partial<SlackAdapterConfig> = {},
): Promise<Running> {
	const adapter = createSlackAdapter({
		...deps,
		logger: deps.logger ?? silentLogger,
		config: {
			botToken: "xoxb-test",
			signingSecret: fake.signingSecret,
			apiUrl: fake.apiUrl.replace(/\/$/, ""), // the adapter must add the slash itself
			port: 0,
			host: "127.0.0.1",
			adminUserIds: [],
			retry: { retries: 1, minTimeoutMs: 10, maxTimeoutMs: 50 },
			requestTimeoutMs: 5000,
			...config,
		},
	});
	await adapter.start();
	const url = `http://127.0.0.1:${adapter.port()}/slack/events`;
	return { adapter, url, sender: fake.sender(url) };
}

/** A control (button or select) inside a posted message. */
export interface FoundControl {
	message: FakeMessage;
	actionId: string;
	type: string;
}

/** Every control of a message's actions blocks. */
export function controlsOf(message: FakeMessage): FoundControl[] {
	const out: FoundControl[] = [];
	for (const block of (message.blocks ?? []) as Record<string, unknown>[]) {
		if (block.type !== "actions" || !Array.isArray(block.elements)) continue;
		for (const el of block.elements as Record<string, unknown>[])
			out.push({ message, actionId: String(el.action_id), type: String(el.type) });
	}
	return out;
}

/** The first control whose action id starts with `prefix`, in any message the bot posted. */
export function findControl(fake: FakeSlack, prefix: string): FoundControl | undefined {
	for (const message of fake.messages.values()) {
		const found = controlsOf(message).find((c) => c.actionId.startsWith(prefix));
		if (found) return found;
	}
	return undefined;
}

/** All text of a message (fallback text plus block texts), for assertions. */
export function textOf(params: Record<string, unknown> | FakeMessage): string {
	return JSON.stringify([params.text ?? "", params.blocks ?? []]);
}

/**
 * What the bot posted, in the order Slack received it: each chat.postMessage's text (textOf) and each streamed
 * message's whole text (chat.startStream … stopStream: a solo lesson's explanations), optionally only in the
 * thread of `threadTs` (top-level messages too with `topLevel`). `uploads`: completed uploads as their method name.
 */
export function postedTexts(
	fake: FakeSlack,
	options: { threadTs?: string; topLevel?: boolean; uploads?: boolean } = {},
): string[] {
	const streams = [...fake.streams.values()];
	let started = 0;
	const inScope = (thread: unknown) =>
		options.threadTs === undefined || thread === options.threadTs || (options.topLevel === true && !thread);
	const out: string[] = [];
	for (const c of fake.calls) {
		if (c.method === "chat.postMessage" && inScope(c.params.thread_ts)) out.push(textOf(c.params));
		else if (c.method === "chat.startStream" && c.ok) {
			const stream = streams[started++];
			if (stream && inScope(stream.threadTs)) out.push(stream.parts.join(""));
		} else if (options.uploads && c.method === "files.completeUploadExternal") out.push(c.method);
	}
	return out;
}
