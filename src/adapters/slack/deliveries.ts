/**
 * Slack's deliveries: when each is answered, and its redeliveries recognised in the shared
 * store (see lesson/deliveries.ts): an Events API retry (`X-Slack-Retry-Num`, the same
 * `event_id`), a replayed signed request (the same `trigger_id`: a signature is accepted for
 * 5 minutes, the claim lasts longer). A second `/lesson start` typed by hand has its own
 * trigger and runs (after a refusal, a retry must work); starting a second lesson at once is
 * for the lesson rules to allow.
 *
 * Record first, answer after: the HTTP receiver answers Slack when a request's listeners
 * return (`processBeforeResponse`), and a listener returns once what the request carries is
 * recorded (an answer in the lesson's inbox, a message handed to the tutor) or at the
 * request's deadline (`ANSWER_BY_MS` after it arrived), whichever comes first; the rest of its
 * work goes on after. A process killed before recording leaves the request unanswered: Slack
 * retries an event, and a click shows its error to the person, who clicks again. A delivery
 * another process claimed and has not finished is answered 500 (Slack retries it later),
 * a finished one 200 without work. Socket Mode acknowledges events before any listener runs
 * (Bolt does): there an event is acknowledged first (one process, for development).
 */

import type { AckFn, App, Context } from "@slack/bolt";
import { DELIVERY_TTL_MS } from "../lesson/deliveries.ts";
import { within } from "../lesson/within.ts";
import type { HandlerContext } from "./context.ts";

/** How long after a request arrives Slack gets its answer at the latest (Slack allows 3 s; a margin for the network). */
export const ANSWER_BY_MS = 2_000;
/** How long the duplicate check may take of that (the work gets the rest). */
const CLAIM_WAIT_MS = 1_000;

/** The error code of a delivery another process is handling (rethrown by app.error: Slack gets a 500 and retries). */
export const DELIVERY_BUSY = "learnharness_delivery_busy";

const RECEIVED = "lhReceivedAt";

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);

/** The claim a request makes: its event_id, or its trigger_id (commands, clicks, submissions); undefined without one. */
export function deliveryKey(body: Record<string, unknown>): string | undefined {
	if (body.type === "event_callback") {
		const id = str(body.event_id);
		return id ? `slack:event:${id}` : undefined;
	}
	const trigger = str(body.trigger_id);
	return trigger ? `slack:trigger:${trigger}` : undefined;
}

/** An error that makes Slack redeliver later: another process claimed `key` and has not finished it. */
export function deliveryBusy(key: string): Error {
	return Object.assign(new Error(`another bot process is handling ${key}; Slack will retry it`), {
		code: DELIVERY_BUSY,
	});
}

/** Milliseconds left until the request must be answered. */
function msLeft(context: Context): number {
	const received = typeof context[RECEIVED] === "number" ? (context[RECEIVED] as number) : Date.now();
	return received + ANSWER_BY_MS - Date.now();
}

/**
 * Register the duplicate filter (before every listener): a duplicate is answered without work, a delivery
 * another process holds is answered 500; the first delivery's claim is confirmed once its listeners returned.
 */
export function registerDeliveryGuard(app: App, ctx: HandlerContext): void {
	const claims = ctx.controller.deliveries;
	app.use(async (args) => {
		const { body, context, next } = args;
		context[RECEIVED] = Date.now();
		const b = body as unknown as Record<string, unknown>;
		const key = deliveryKey(b);
		if (!key) return next();
		const ttl = b.type === "event_callback" ? DELIVERY_TTL_MS.event : DELIVERY_TTL_MS.trigger;
		const verdict = await claims.claim(key, ttl, CLAIM_WAIT_MS);
		if (verdict === "busy") throw deliveryBusy(key);
		if (verdict === "seen") {
			ctx.logger.info({ key, retryNum: context.retryNum }, "slack: acknowledged a redelivery without work");
			// Events are acknowledged by Bolt itself; everything else is acknowledged here.
			const ack = (args as { ack?: AckFn<unknown> }).ack;
			if (ack) await ack();
			return;
		}
		try {
			await next();
		} catch (error) {
			await claims.release(key);
			throw error;
		}
		await claims.confirm(key, ttl);
	});
}

/**
 * Run a listener's `work` (errors logged as `what`) and resolve once it is done or the request's deadline
 * came, whichever first; the work goes on after. Acknowledge after this.
 */
export async function recordFirst(
	ctx: HandlerContext,
	context: Context,
	what: string,
	work: () => Promise<unknown>,
): Promise<void> {
	const running = work().catch((error: unknown) => ctx.logger.error({ err: error }, `slack: handling ${what} failed`));
	await within(running, msLeft(context));
}

/** Run `work` after the listener returned (its request already answered); errors logged as `what`. */
export function afterAnswer(ctx: HandlerContext, what: string, work: () => Promise<unknown>): void {
	// On the next check phase: the answers (and arrivals) already waiting go out before this work.
	setImmediate(
		() =>
			void Promise.resolve()
				.then(work)
				.catch((error: unknown) => ctx.logger.error({ err: error }, `slack: handling ${what} failed`)),
	);
}
