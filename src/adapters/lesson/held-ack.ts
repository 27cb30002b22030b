/**
 * Record first, acknowledge after: a platform delivery (a click, a form) is acknowledged once
 * the tutor has recorded or refused what it carries, so a process that dies in between leaves
 * it unacknowledged (the platform tells the person it failed, or redelivers it) instead of
 * acknowledged and lost. Bounded: the held acknowledgement is sent by itself after `boundMs`, so the
 * platform's 3-second deadline holds whatever the store does. Sending twice acknowledges once.
 */

/** How long a delivery's acknowledgement may wait for its event to be recorded (Discord and Slack allow 3 s). */
export const RECORD_BEFORE_ACK_MS = 1_500;

/** One delivery's acknowledgement, held until it is sent. */
export interface HeldAck {
	/** Acknowledge now (once); true when the platform took it. Never rejects. */
	send(): Promise<boolean>;
	/** Resolves with send()'s outcome, whoever sent it (a caller, or the bound). */
	readonly sent: Promise<boolean>;
}

/** Hold `ack` until send(), at the latest for `boundMs`; `onError` hears a failed ack. */
export function holdAck(
	ack: () => Promise<void>,
	onError: (error: unknown) => void,
	boundMs: number = RECORD_BEFORE_ACK_MS,
): HeldAck {
	let resolveSent: (ok: boolean) => void = () => {};
	const sent = new Promise<boolean>((resolve) => {
		resolveSent = resolve;
	});
	let started: Promise<boolean> | undefined;
	const timer = setTimeout(() => void send(), Math.max(0, boundMs));
	timer.unref?.();
	function send(): Promise<boolean> {
		if (started) return started;
		clearTimeout(timer);
		started = Promise.resolve()
			.then(ack)
			.then(
				() => true,
				(error: unknown) => {
					onError(error);
					return false;
				},
			);
		void started.then(resolveSent);
		return started;
	}
	return { send, sent };
}
