/**
 * The learners of `bench:scale`, on the fake Discord: start lessons by `/lesson start` in
 * guilds spread over the shards, click the first choice of every quiz card after a think
 * time, click again a card whose click was never acknowledged ("this interaction failed"), and count
 * from the fake's side: each click's ack latency (the fake sending the interaction to the
 * bot's first callback), turns completed (new quiz cards) and REST calls per route.
 */

import {
	type FakeDiscord,
	type FakeInteraction,
	type FakeMessage,
	messageControls,
} from "../../testkit/fakes/discord.ts";

const PICK = /^lh:pick:[^:]+:0$/;
const TICK_MS = 100;

/** A guild to start lessons in. */
export interface BenchGuild {
	id: string;
	general: string;
	/** Its shard under the run's shard count. */
	shard: number;
}

/** One lesson as the learners see it (keyed by its thread). */
interface Lesson {
	thread: string;
	guild: BenchGuild;
	/** The latest quiz card and its pick control. */
	card?: { messageId: string; pick: string; at: number };
	/** When its latest card was clicked (undefined: not yet), and that click. */
	clickedAt?: number;
	click?: FakeInteraction;
	cards: number;
}

/** A click the learners made. */
interface Click {
	it: FakeInteraction;
	at: number;
}

/** Counts over a window of time. */
export interface WindowStats {
	seconds: number;
	clicks: number;
	acked: number;
	/** Clicks with no ack (never, or refused after Discord's 3 s). */
	unacked: number;
	ackP50Ms: number;
	ackP99Ms: number;
	ackMaxMs: number;
	turns: number;
	turnsPerS: number;
	/** REST calls that count against the bot's global limit (all but interaction callbacks and webhooks). */
	restGlobal: number;
	restAll: number;
	/** Global-limited calls per route (method and path with ids as :id). */
	byRoute: Record<string, number>;
	/** Lessons that finished at least one turn in the window. */
	lessonsTurning: number;
	/**
	 * What a learner waits for the next question: from a click's ack to the lesson's next card (up to when
	 * the stats are taken for a click still waiting, so a lower bound), p50/p99 in ms over acked clicks.
	 */
	nextP50Ms: number;
	nextP99Ms: number;
}

/**
 * How long a learner thinks before clicking a card: uniform in [0, maxMs) (the saturation runs: every learner
 * as fast as a card allows), or exponential with a mean (a human pace: memoryless, so a resume starts at the
 * steady rate with no burst), capped.
 */
export type Think = { kind: "uniform"; maxMs: number } | { kind: "exponential"; meanMs: number; capMs: number };

/** One think time drawn from `think`. */
export function thinkTime(think: Think): number {
	if (think.kind === "uniform") return Math.random() * think.maxMs;
	return Math.min(think.capMs, -Math.log(1 - Math.random()) * think.meanMs);
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
	if (sorted.length === 0) return Number.NaN;
	return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
}

const globalLimited = (path: string) => !path.startsWith("/interactions/") && !path.startsWith("/webhooks/");
const routeOf = (method: string, path: string) =>
	`${method} ${path.replace(/\d{15,25}/g, ":id").replace(/itoken-[^/]+/g, ":token")}`;

/** The learners, ticking every 100 ms until stop(). */
export class Learners {
	readonly lessons = new Map<string, Lesson>();
	readonly clicks: Click[] = [];
	readonly starts: FakeInteraction[] = [];
	/** When each quiz card appeared, per thread (for the hand-over measure). */
	readonly cardTimes: Array<{ thread: string; at: number }> = [];
	reclicks = 0;
	/** While paused, new cards wait unclicked (the lessons are being started). */
	private paused = false;
	private seen = 0;
	private readonly timer: NodeJS.Timeout;
	private readonly pending = new Set<NodeJS.Timeout>();

	constructor(
		private readonly fake: FakeDiscord,
		private readonly guilds: BenchGuild[],
		private readonly opts: { stallMs: number; think: Think },
	) {
		this.timer = setInterval(() => this.tick(), TICK_MS);
	}

	/** Start `count` lessons round-robin over the guilds, `perSecond` at most; resolves once all were sent. */
	async start(count: number, perSecond: number, until: number): Promise<number> {
		const gap = 1000 / perSecond;
		const t0 = Date.now();
		let i = 0;
		for (; i < count && Date.now() < until; i++) {
			const guild = this.guilds[i % this.guilds.length] as BenchGuild;
			this.starts.push(
				this.fake.slash({
					user: this.fake.users.learner,
					channelId: guild.general,
					subcommand: "start",
					options: { topic: `topic ${i}` },
				}),
			);
			const wait = t0 + (i + 1) * gap - Date.now();
			if (wait > 0) await new Promise((r) => setTimeout(r, wait));
		}
		return i;
	}

	/**
	 * Change how long learners think from now on: the cards waiting for a click are given new think times
	 * (at a switch to the fast pace every waiting learner clicks within one think time: a burst).
	 */
	pace(think: Think): void {
		this.opts.think = think;
		for (const t of this.pending) clearTimeout(t);
		this.pending.clear();
		if (this.paused) return;
		for (const lesson of this.lessons.values()) if (lesson.card && lesson.clickedAt === undefined) this.later(lesson);
	}

	/** Stop clicking new cards until resume(). */
	pause(): void {
		this.paused = true;
	}

	/** Click every card left waiting (each after a think time), and new ones again. */
	resume(): void {
		this.paused = false;
		for (const lesson of this.lessons.values()) if (lesson.card && lesson.clickedAt === undefined) this.later(lesson);
	}

	/** Lessons with at least one quiz card. */
	live(): number {
		return this.lessons.size;
	}

	/** Stats over [from, to): clicks made in it (acks looked at now), cards posted and REST calls in it. */
	window(from: number, to: number): WindowStats {
		const clicks = this.clicks.filter((c) => c.at >= from && c.at < to);
		const samples = clicks
			.filter((c) => c.it.ackedAt !== undefined)
			.map((c) => (c.it.ackedAt as number) - c.it.createdAt)
			.sort((a, b) => a - b);
		const cards = this.cardTimes.filter((c) => c.at >= from && c.at < to);
		const calls = this.fake.calls.filter((c) => c.at >= from && c.at < to);
		const byRoute: Record<string, number> = {};
		let restGlobal = 0;
		for (const c of calls) {
			if (!globalLimited(c.path)) continue;
			restGlobal++;
			const r = routeOf(c.method, c.path);
			byRoute[r] = (byRoute[r] ?? 0) + 1;
		}
		const seconds = (to - from) / 1000;
		const next = this.nextWaits(clicks);
		return {
			seconds,
			clicks: clicks.length,
			acked: samples.length,
			unacked: clicks.length - samples.length,
			ackP50Ms: percentile(samples, 0.5),
			ackP99Ms: percentile(samples, 0.99),
			ackMaxMs: samples.at(-1) ?? Number.NaN,
			turns: cards.length,
			turnsPerS: cards.length / seconds,
			restGlobal,
			restAll: calls.length,
			byRoute,
			lessonsTurning: new Set(cards.map((c) => c.thread)).size,
			nextP50Ms: percentile(next, 0.5),
			nextP99Ms: percentile(next, 0.99),
		};
	}

	/** Sorted waits from each acked click's ack to its lesson's next card (or to now, when none came yet). */
	private nextWaits(clicks: Click[]): number[] {
		const cardsOf = new Map<string, number[]>();
		for (const c of this.cardTimes) {
			const list = cardsOf.get(c.thread) ?? [];
			list.push(c.at);
			cardsOf.set(c.thread, list);
		}
		const now = Date.now();
		return clicks
			.filter((c) => c.it.ackedAt !== undefined)
			.map((c) => {
				const acked = c.it.ackedAt as number;
				const next = cardsOf.get(c.it.channelId)?.find((at) => at > c.at) ?? now;
				return Math.max(0, next - acked);
			})
			.sort((a, b) => a - b);
	}

	/** Threads of lessons (in guilds of `shard`) whose latest card was clicked and whose turn is not done. */
	inFlight(shard: number): string[] {
		return [...this.lessons.values()]
			.filter((l) => l.guild.shard === shard && l.clickedAt !== undefined)
			.map((l) => l.thread);
	}

	stop(): void {
		clearInterval(this.timer);
		for (const t of this.pending) clearTimeout(t);
		this.pending.clear();
	}

	private tick(): void {
		const all = [...this.fake.messages.values()];
		for (const m of all.slice(this.seen)) this.onMessage(m);
		this.seen = all.length;
		const now = Date.now();
		// A learner clicks again only when Discord said the interaction failed (no ack): a slow turn is waited for.
		for (const lesson of this.lessons.values())
			if (
				lesson.card &&
				lesson.clickedAt !== undefined &&
				lesson.click?.ackedAt === undefined &&
				now - lesson.clickedAt > this.opts.stallMs
			) {
				this.reclicks++;
				this.click(lesson);
			}
	}

	private onMessage(m: FakeMessage): void {
		const pick = messageControls(m)
			.map((c) => String(c.custom_id ?? ""))
			.find((id) => PICK.test(id));
		if (!pick || m.visibleTo) return;
		let lesson = this.lessons.get(m.channelId);
		if (!lesson) {
			const parent = this.fake.channels.get(m.channelId)?.parentId;
			const guild = this.guilds.find((g) => g.general === parent || g.id === m.guildId);
			if (!guild) return;
			lesson = { thread: m.channelId, guild, cards: 0 };
			this.lessons.set(m.channelId, lesson);
		}
		const at = Date.now();
		lesson.card = { messageId: m.id, pick, at };
		lesson.clickedAt = undefined;
		lesson.click = undefined;
		lesson.cards++;
		this.cardTimes.push({ thread: lesson.thread, at });
		if (!this.paused) this.later(lesson);
	}

	/** Click the lesson's card after a think time (unless a newer card came or it was clicked). */
	private later(lesson: Lesson): void {
		const id = lesson.card?.messageId;
		const timer = setTimeout(() => {
			this.pending.delete(timer);
			if (!this.paused && lesson.card?.messageId === id && lesson.clickedAt === undefined) this.click(lesson);
		}, thinkTime(this.opts.think));
		this.pending.add(timer);
	}

	private click(lesson: Lesson): void {
		const card = lesson.card;
		if (!card) return;
		lesson.clickedAt = Date.now();
		const it = this.fake.click({
			user: this.fake.users.learner,
			messageId: card.messageId,
			customId: card.pick,
			force: true,
		});
		lesson.click = it;
		this.clicks.push({ it, at: lesson.clickedAt });
	}
}
