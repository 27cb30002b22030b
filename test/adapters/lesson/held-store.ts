/**
 * A keyv store (get/set/delete/clear) whose every operation waits while held:
 * proves that acks never wait for the store. Counts the operations waiting.
 */

/** A gate callers pass through; hold() closes it until the returned release is called. */
export class Gate {
	private closed: Promise<void> = Promise.resolve();

	/** Close the gate; the returned function opens it again. */
	hold(): () => void {
		let release = () => {};
		this.closed = new Promise<void>((resolve) => {
			release = resolve;
		});
		return () => {
			release();
			this.closed = Promise.resolve();
		};
	}

	/** Resolves once the gate is open. */
	pass(): Promise<void> {
		return this.closed;
	}
}

/** An in-memory keyv store that can be held. */
export class HeldStore {
	private readonly map = new Map<string, unknown>();
	private readonly gate = new Gate();
	waiting = 0;

	/** Hold every later operation until the returned function is called. */
	hold(): () => void {
		return this.gate.hold();
	}

	private async pass(): Promise<void> {
		this.waiting++;
		try {
			await this.gate.pass();
		} finally {
			this.waiting--;
		}
	}
	async get(key: string): Promise<unknown> {
		await this.pass();
		return this.map.get(key);
	}
	async set(key: string, value: unknown): Promise<boolean> {
		await this.pass();
		this.map.set(key, value);
		return true;
	}
	async delete(key: string): Promise<boolean> {
		await this.pass();
		return this.map.delete(key);
	}
	async clear(): Promise<void> {
		this.map.clear();
	}
}
