/** The deployment example stays parseable and consistent with the code it runs. */
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");

describe("deploy/", () => {
	it("docker-compose.yml: two instances on Redis behind a proxy, health-checked on /readyz", () => {
		const compose = parse(read("deploy/docker-compose.yml"), { merge: true }) as {
			services: Record<string, { environment?: Record<string, string>; healthcheck?: { test: string[] } }>;
		};
		expect(Object.keys(compose.services).sort()).toEqual(["bot-1", "bot-2", "proxy", "redis"]);
		for (const bot of ["bot-1", "bot-2"]) {
			const service = compose.services[bot];
			expect(service?.environment?.LEARNHARNESS_STORE_URL).toBe("redis://redis:6379");
			expect(service?.healthcheck?.test.join(" ")).toContain("/readyz");
		}
		const caddy = read("deploy/Caddyfile");
		expect(caddy).toMatch(/reverse_proxy \/slack\/\* bot-1:3000 bot-2:3000/);
		expect(caddy).toContain("health_uri /readyz");
	});

	it("the Dockerfile builds dist/ and starts the bot directly (signals reach node)", () => {
		const docker = read("deploy/Dockerfile");
		expect(docker).toContain("RUN npm run build");
		expect(docker).toContain('CMD ["node", "bin/learnharness.js", "start"]');
		expect(read(".dockerignore")).toMatch(/^\.env$/m);
	});
});
