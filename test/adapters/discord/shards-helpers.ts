/** Helpers of the sharding tests: the process tree's log, bounded waits on it, and duplicate checks. */

import {
	type FakeDiscord,
	type FakeInteraction,
	type FakeMessage,
	type FakeUser,
	messageControls,
} from "../../../testkit/fakes/discord.ts";
import type { CliChild } from "../../fixtures/child-process.ts";
import { openAnswerModal } from "../../fixtures/discord/drive-lesson.ts";
import {
	DEFAULT_ANSWER,
	deadlineIn,
	LESSON_OVER,
	pickedOption,
	useEveryControl,
} from "../../fixtures/drive-controls.ts";

/** The pino JSON lines of the output (other lines skipped). */
export function logLines(output: string): Array<Record<string, unknown>> {
	return output.split("\n").flatMap((line) => {
		if (!line.startsWith("{")) return [];
		try {
			return [JSON.parse(line) as Record<string, unknown>];
		} catch {
			return [];
		}
	});
}

/** Resolves once the output matches `pattern`; rejects with the output when the process exits first or at `timeoutMs`. */
export async function untilOutput(cli: CliChild, pattern: RegExp, timeoutMs: number): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!pattern.test(cli.output())) {
		if (cli.child.exitCode !== null || cli.child.signalCode !== null)
			throw new Error(
				`learnharness exited (${cli.child.exitCode ?? cli.child.signalCode}):\n${cli.output().slice(-4000)}`,
			);
		if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${cli.output().slice(-4000)}`);
		await new Promise((resolve) => setTimeout(resolve, 100));
	}
}

/** Like Promise.all, with the first failure rewritten by `wrap` (e.g. to add the process output). */
export async function allOf<T>(promises: Array<Promise<T>>, wrap: (error: unknown) => Error): Promise<T[]> {
	try {
		return await Promise.all(promises);
	} catch (error) {
		throw wrap(error);
	}
}

/** Control ids (lh:…) that sit on more than one message of a thread: a quiz or card posted twice. */
export function componentIdsOnTwoMessages(messages: FakeMessage[]): string[] {
	const seen = new Map<string, number>();
	for (const m of messages) {
		const ids = new Set(
			(messageControls(m) as Control[]).flatMap((c) => (c.custom_id?.startsWith("lh:") ? [c.custom_id] : [])),
		);
		for (const id of ids) seen.set(id, (seen.get(id) ?? 0) + 1);
	}
	return [...seen].filter(([, n]) => n > 1).map(([id]) => id);
}

/** What driveWithFaults saw. */
export interface FaultyLesson {
	threadId: string;
	/** Controls used, in order (their custom ids), with the interaction each sent. */
	used: Array<{ id: string; interaction: FakeInteraction }>;
	ended: boolean;
}

type Control = { type: number; custom_id?: string; disabled?: boolean; options?: Array<{ value: string }> };

const openControls = (message: FakeMessage): Control[] =>
	(messageControls(message) as Control[]).filter((c) => c.custom_id?.startsWith("lh:") && c.disabled !== true);

/**
 * A learner's whole lesson like driveLesson (test/fixtures/discord/drive-lesson.ts), with two hooks:
 * `gate(step)` is awaited before each control is used (a learner waiting for the bot to come back),
 * and `afterUse(step, interaction)` runs after each (where a test kills or pauses a process).
 * Its thread is the new one under its own channel, so lessons may start at the same time.
 */
export async function driveWithFaults(
	fake: FakeDiscord,
	options: {
		user: FakeUser;
		channelId: string;
		topic: string;
		timeoutMs: number;
		gate?: (step: number) => Promise<void>;
		afterUse?: (step: number, interaction: FakeInteraction) => Promise<void>;
	},
): Promise<FaultyLesson> {
	const deadline = deadlineIn(options.timeoutMs);
	const mine = () => fake.createdThreads().filter((t) => t.parentId === options.channelId);
	const before = new Set(mine().map((t) => t.id));
	fake.slash({
		user: options.user,
		channelId: options.channelId,
		subcommand: "start",
		options: { topic: options.topic },
	});
	const thread = await fake.waitFor(() => mine().find((t) => !before.has(t.id)), "the lesson thread", deadline.left());
	const ended = () => fake.channelMessages(thread.id).some((m) => LESSON_OVER.test(m.text));
	const used: FaultyLesson["used"] = [];
	await useEveryControl(
		{
			messages: () => fake.channelMessages(thread.id),
			controls: openControls,
			idOf: (c) => c.custom_id ?? "",
			ended,
			waitFor: (check, what, timeoutMs) => fake.waitFor(check, what, timeoutMs),
			async use(m, control, id) {
				const step = used.length;
				await options.gate?.(step);
				let it: FakeInteraction;
				if (control.type === 3) {
					it = fake.select({
						user: options.user,
						messageId: m.id,
						customId: id,
						values: [pickedOption(control.options)],
					});
				} else if (id.startsWith("lh:open:")) {
					const opened = await openAnswerModal(
						fake,
						() => fake.click({ user: options.user, messageId: m.id, customId: id }),
						deadline,
					);
					const textId = id.replace("lh:open:", "lh:text:");
					it = fake.submitModal({ user: options.user, opened, values: { [textId]: DEFAULT_ANSWER } });
				} else {
					it = fake.click({ user: options.user, messageId: m.id, customId: id });
				}
				used.push({ id, interaction: it });
				await options.afterUse?.(step, it);
			},
		},
		{ deadline, maxSteps: 60 },
	);
	return { threadId: thread.id, used, ended: ended() };
}

/** The pid of a shard's current process, from the manager's "shard started" lines. */
export function shardPid(output: string, shard: number): number | undefined {
	const started = logLines(output).filter((l) => l.msg === "shard started" && l.shard === shard);
	const pid = started.at(-1)?.pid;
	return typeof pid === "number" ? pid : undefined;
}

/** How many times the manager saw a shard become ready. */
export function shardReadyCount(output: string, shard: number): number {
	return logLines(output).filter((l) => l.msg === "shard ready" && l.shard === shard).length;
}
