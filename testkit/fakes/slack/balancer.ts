/**
 * Slack in front of several bot processes: each delivery (slash command, interaction, event)
 * goes to one of the bot URLs picked at random, as a load balancer would spread them. A
 * delivery that is not answered — connection refused (the process is dead), no answer within
 * 3 s (Slack's limit; a paused process accepts the connection and says nothing) or a 5xx — is
 * sent again to another URL with Slack's `X-Slack-Retry-Num` and `X-Slack-Retry-Reason`
 * headers, re-signed, the body unchanged (the same event_id, trigger_id). Bounded in attempts.
 * Like the reverse proxy of the compose example (deploy/Caddyfile: passive health checks), a URL
 * that refused a connection or did not answer in time gets no new delivery for `failMs` while
 * another is healthy.
 */

import {
	type BoltResponse,
	type SenderTarget,
	type SendOptions,
	SlackSender,
	signSlackRequest,
} from "../../fixtures/slack/requests.ts";

/** How one attempt of a delivery ended. */
export type DeliveryOutcome = number | "refused" | "timeout" | "error";

/** One attempt to deliver a request to one bot URL. */
export interface DeliveryAttempt {
	url: string;
	/** 0 for the first try; Slack's X-Slack-Retry-Num for the others. */
	attempt: number;
	/** What was delivered, in short (`command /lesson C1`, `block_actions lh:pick:… C1`, `event message C1`). */
	what: string;
	outcome: DeliveryOutcome;
	/** When the attempt started and how long it took (ms). */
	at: number;
	ms: number;
}

/** Options of the balancer. */
export interface BalancerOptions {
	/** How long an attempt may wait for the answer (Slack: 3 s). */
	answerTimeoutMs?: number;
	/** Attempts per delivery (Slack retries an event 3 times: 4 in all). */
	maxAttempts?: number;
	/** A random number in [0, 1) (a seeded one makes the spread repeatable). */
	random?: () => number;
	/** How long a URL that refused or timed out is passed over (default 10 s, the Caddyfile's fail_duration). */
	failMs?: number;
}

/** A short description of a delivery's body (for test failure messages). */
export function describeDelivery(body: string): string {
	try {
		if (body.startsWith("{")) {
			const event = (JSON.parse(body) as { event?: { type?: string; channel?: string } }).event;
			return `event ${event?.type} ${event?.channel}`;
		}
		const form = new URLSearchParams(body);
		const payload = form.get("payload");
		if (!payload) return `command ${form.get("command")} ${form.get("channel_id")}`;
		const p = JSON.parse(payload) as {
			type?: string;
			actions?: Array<{ action_id?: string }>;
			channel?: { id?: string };
			view?: { private_metadata?: string };
		};
		const target = p.actions?.[0]?.action_id ?? p.view?.private_metadata?.slice(0, 80) ?? "";
		return `${p.type} ${target} ${p.channel?.id ?? ""}`.trim();
	} catch {
		return "unreadable";
	}
}

function outcomeOf(error: unknown): DeliveryOutcome {
	const e = error as { name?: string; cause?: { code?: string; name?: string } };
	if (e?.name === "TimeoutError" || e?.cause?.name === "TimeoutError") return "timeout";
	if (e?.cause?.code === "ECONNREFUSED" || e?.cause?.code === "ECONNRESET") return "refused";
	return "error";
}

/** A sender that spreads its deliveries over several bot URLs and retries a lost one elsewhere. */
export class BalancedSender extends SlackSender {
	/** Every attempt, in order. */
	readonly attempts: DeliveryAttempt[] = [];
	private readonly answerTimeoutMs: number;
	private readonly maxAttempts: number;
	private readonly random: () => number;
	private readonly failMs: number;
	/** URL → until when it is passed over (it refused a connection or did not answer in time). */
	private readonly failedUntil = new Map<string, number>();

	constructor(
		readonly urls: readonly string[],
		private readonly target: SenderTarget,
		triggers: Map<string, number>,
		options: BalancerOptions = {},
	) {
		super(urls[0] ?? "", target, triggers);
		if (urls.length === 0) throw new Error("a balancer needs at least one bot URL");
		this.answerTimeoutMs = options.answerTimeoutMs ?? 3_000;
		this.maxAttempts = options.maxAttempts ?? 4;
		this.random = options.random ?? Math.random;
		this.failMs = options.failMs ?? 10_000;
	}

	/** A random healthy URL not tried yet for this delivery (else any untried one; any, once all were tried). */
	private pick(tried: Set<string>): string {
		const now = Date.now();
		const fresh = this.urls.filter((u) => !tried.has(u));
		const healthy = fresh.filter((u) => (this.failedUntil.get(u) ?? 0) <= now);
		const from = healthy.length > 0 ? healthy : fresh.length > 0 ? fresh : this.urls;
		return from[Math.floor(this.random() * from.length)] ?? (this.urls[0] as string);
	}

	/** POST `body` to a random bot URL; on no answer, to another, with Slack's retry headers. */
	override async raw(body: string, contentType: string, options: SendOptions = {}): Promise<BoltResponse> {
		const tried = new Set<string>();
		const what = describeDelivery(body);
		let last: DeliveryOutcome = "error";
		for (let attempt = 0; attempt < this.maxAttempts; attempt++) {
			const url = this.pick(tried);
			tried.add(url);
			const retry: Record<string, string> =
				attempt === 0
					? {}
					: {
							"x-slack-retry-num": String(attempt),
							"x-slack-retry-reason": last === "timeout" ? "http_timeout" : "http_error",
						};
			// Each delivery is signed when it is sent (a retry carries a fresh timestamp).
			const signed = signSlackRequest(options.secret ?? this.target.signingSecret, body, options.timestampSec);
			const at = Date.now();
			try {
				const res = await fetch(url, {
					method: "POST",
					headers: { "content-type": contentType, ...options.headers, ...retry, ...signed },
					body,
					signal: AbortSignal.timeout(Math.min(options.timeoutMs ?? this.answerTimeoutMs, this.answerTimeoutMs)),
				});
				const text = await res.text();
				last = res.status;
				this.attempts.push({ url, attempt, what, outcome: res.status, at, ms: Date.now() - at });
				if (res.status >= 500) continue;
				const out: BoltResponse = { status: res.status, text };
				if (text.startsWith("{")) {
					try {
						out.json = JSON.parse(text) as Record<string, unknown>;
					} catch {
						// not JSON after all: the text is enough
					}
				}
				return out;
			} catch (error) {
				last = outcomeOf(error);
				this.attempts.push({ url, attempt, what, outcome: last, at, ms: Date.now() - at });
				if (last === "refused" || last === "timeout") this.failedUntil.set(url, Date.now() + this.failMs);
			}
		}
		throw new Error(`slack balancer: no bot answered after ${this.maxAttempts} attempts (last: ${last})`);
	}
}
