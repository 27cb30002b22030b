/**
 * Record first, acknowledge after: a platform delivery (a click, a form) is acknowledged once
 * the tutor has recorded or refused what it carries, so a process that dies in between leaves
 * it unacknowledged (the platform tells the person it failed, or redelivers it) instead of
 * acknowledged and lost. Bounded: the gate opens by itself after `boundMs`, so the platform's
 * 3-second deadline holds whatever the store does. Opening twice acknowledges once.
 */

/** How long a delivery's acknowledgement may wait for its event to be recorded (Discord and Slack allow 3 s). */
export const RECORD_BEFORE_ACK_MS = 1_500;

/** One delivery's acknowledgement. */
export interface AckGate {
	/** Acknowledge now (once); true when the platform took it. Never rejects. */
	open(): Promise<boolean>;
	/** Settles with open()'s outcome, whoever opened the gate (a caller, or the bound). */
	readonly opened: Promise<boolean>;
}

/** A gate around `ack` that opens at the latest after `boundMs`; `onError` hears a failed ack. */
export function createAckGate(
	ack: () => Promise<void>,
	onError: (error: unknown) => void,
	boundMs: number = RECORD_BEFORE_ACK_MS,
): AckGate {
	let settle: (ok: boolean) => void = () => {};
	const opened = new Promise<boolean>((resolve) => {
		settle = resolve;
	});
	let started: Promise<boolean> | undefined;
	const timer = setTimeout(() => void open(), Math.max(0, boundMs));
	timer.unref?.();
	function open(): Promise<boolean> {
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
		void started.then(settle);
		return started;
	}
	return { open, opened };
}
