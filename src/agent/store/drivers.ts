/**
 * The Redis and PostgreSQL drivers, loaded on first use: a process on SQLite (the default, the playground,
 * tests) never loads them. Imported at the top they cost every start about 0.4 s of CPU (`@redis/client`
 * alone 0.3 s; measured by timing each CommonJS module's compile in a playground start), for stores it
 * does not use. Each is loaded once, synchronously (`require`: opening a store stays synchronous), the
 * CommonJS builds throughout, so `@keyv/redis` and our own client share one `@redis/client`, and
 * `@keyv/postgres` and our pool one `pg`.
 *
 * "Is this store Redis / PostgreSQL?" is answered without loading anything: a store cannot be an instance
 * of a class that was never loaded.
 */

import { createRequire } from "node:module";
import type KeyvPostgresType from "@keyv/postgres";
import type KeyvRedisType from "@keyv/redis";
import type * as RedisClient from "@redis/client";
import type PgType from "pg";

const load = createRequire(import.meta.url);

let redisClient: typeof RedisClient | undefined;
let keyvRedis: typeof KeyvRedisType | undefined;
let pg: typeof PgType | undefined;
let keyvPostgres: typeof KeyvPostgresType | undefined;

/** `@redis/client`. */
export const redisClientModule = (): typeof RedisClient => {
	redisClient ??= load("@redis/client") as typeof RedisClient;
	return redisClient;
};

/** `@keyv/redis`'s store class. */
export const keyvRedisClass = (): typeof KeyvRedisType => {
	keyvRedis ??= (load("@keyv/redis") as { default: typeof KeyvRedisType }).default;
	return keyvRedis;
};

/** `pg`. */
export const pgModule = (): typeof PgType => {
	pg ??= load("pg") as typeof PgType;
	return pg;
};

/** `@keyv/postgres`'s store class. */
export const keyvPostgresClass = (): typeof KeyvPostgresType => {
	keyvPostgres ??= (load("@keyv/postgres") as { default: typeof KeyvPostgresType }).default;
	return keyvPostgres;
};

/** True when `store` is a keyv Redis store (false, loading nothing, when no Redis store was ever opened). */
export const isKeyvRedis = (store: unknown): store is KeyvRedisType<unknown> =>
	keyvRedis !== undefined && store instanceof keyvRedis;

/** True when `store` is a keyv PostgreSQL store (false, loading nothing, when none was ever opened). */
export const isKeyvPostgres = (store: unknown): store is KeyvPostgresType =>
	keyvPostgres !== undefined && store instanceof keyvPostgres;
