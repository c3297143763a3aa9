// client-check.ts is what an integrator writes against the TypeScript types that
// openapi-typescript generates from rest/openapi.json (scripts/check-openapi.sh). It must
// compile under tsc --strict: if the document loses an operation, a body or a schema, the
// types go vague (`never`, `Record<string, never>`) and this file stops compiling.
import type { components, operations, paths } from "./generated/openapi";

type JSONBody<R> = R extends { content: { "application/json": infer B } } ? B : never;
type Expect<T extends true> = T;
type Has<T, K extends PropertyKey> = K extends keyof T ? true : false;

// Every operation the integrators' examples use has a name.
export type Operations = [
  Expect<Has<operations, "listFarms">>,
  Expect<Has<operations, "createFarm">>,
  Expect<Has<operations, "createRecord">>,
  Expect<Has<operations, "uploadFiles">>,
  Expect<Has<operations, "updateFarmTask">>,
  Expect<Has<operations, "approveBirthPreview">>,
  Expect<Has<operations, "token">>,
  Expect<Has<operations, "deviceAuthorization">>,
  Expect<Has<operations, "deviceToken">>,
  Expect<Has<operations, "revokeToken">>,
];

export const farmsPath: keyof paths = "/v1/farm";

type Farm = components["schemas"]["Farm"];
type NewFarm = operations["createFarm"]["requestBody"]["content"]["application/json"];
type Created = JSONBody<operations["createFarm"]["responses"][201]>;
type Envelope = components["schemas"]["Envelope"];

/** Thrown for an error envelope. */
export class APIError extends Error {
  constructor(readonly status: number, readonly envelope: Envelope) {
    super(envelope.errors.map((e) => `${e.name}: ${e.message}`).join("; "));
  }
}

async function call<T>(base: string, token: string, method: string, path: string, body: unknown, want: number): Promise<T> {
  const res = await fetch(base + path, {
    method,
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: body === undefined ? null : JSON.stringify(body),
  });
  if (res.status !== want) {
    throw new APIError(res.status, (await res.json()) as Envelope);
  }
  return (await res.json()) as T;
}

/** Creates a farm; the caller becomes its OWNER. */
export async function createFarm(base: string, token: string, farm: NewFarm): Promise<Farm> {
  const created = await call<Created>(base, token, "POST", "/v1/farm", farm, 201);
  return created.farm;
}

/** Lists the caller's farms, a page at a time. */
export async function listFarms(base: string, token: string, query: NonNullable<operations["listFarms"]["parameters"]["query"]>): Promise<Farm[]> {
  const q = new URLSearchParams();
  if (query.skip !== undefined) q.set("skip", String(query.skip));
  if (query.take !== undefined) q.set("take", String(query.take));
  const page = await call<JSONBody<operations["listFarms"]["responses"][200]>>(base, token, "GET", "/v1/farm?" + q, undefined, 200);
  return page.records;
}

/** Marks a farm task done, retry-safe through Idempotency-Key. */
export async function completeTask(base: string, token: string, farmID: string, taskID: string, key: string): Promise<components["schemas"]["FarmTask"]> {
  const header: NonNullable<operations["updateFarmTask"]["parameters"]["header"]> = { "Idempotency-Key": key };
  const res = await fetch(`${base}/v1/farm/${farmID}/farm-tasks/${taskID}`, {
    method: "PUT",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...header },
    body: JSON.stringify({ status: "DONE" } satisfies operations["updateFarmTask"]["requestBody"]["content"]["application/json"]),
  });
  return (await res.json()) as JSONBody<operations["updateFarmTask"]["responses"][200]>;
}

/** The multipart form of an upload, as the document describes it. */
export function uploadForm(form: operations["uploadFiles"]["requestBody"]["content"]["multipart/form-data"], files: Blob[]): FormData {
  const data = new FormData();
  data.set("farm_id", form.farm_id);
  if (form.record_id !== undefined) data.set("record_id", form.record_id);
  files.forEach((f, i) => data.append("files", f, `file-${i}`));
  return data;
}

/** Exchanges an authorization code with PKCE for tokens. */
export async function redeem(base: string, code: string, verifier: string, clientID: string, redirectURI: string): Promise<components["schemas"]["TokenResponse"]> {
  const form = {
    grant_type: "authorization_code",
    code,
    code_verifier: verifier,
    client_id: clientID,
    redirect_uri: redirectURI,
  } satisfies operations["token"]["requestBody"]["content"]["application/x-www-form-urlencoded"];
  const res = await fetch(`${base}/oauth/token`, { method: "POST", body: new URLSearchParams(form) });
  if (res.status !== 200) {
    const err = (await res.json()) as components["schemas"]["OAuthError"];
    throw new Error(`${err.error}: ${err.error_description}`);
  }
  return (await res.json()) as components["schemas"]["TokenResponse"];
}
