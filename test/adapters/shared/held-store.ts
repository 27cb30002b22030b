/**
 * A keyv store (get/set/delete/clear) whose every operation waits while held:
 * proves that acks never wait for the store. Counts the operations waiting.
 */

/** An in-memory keyv store that can be held. */
export class HeldStore {
	private readonly map = new Map<string, unknown>();
	private gate: Promise<void> = Promise.resolve();
	waiting = 0;

	hold(): () => void {
		let release = () => {};
		this.gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		return () => {
			release();
			this.gate = Promise.resolve();
		};
	}

	private async pass(): Promise<void> {
		this.waiting++;
		try {
			await this.gate;
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
