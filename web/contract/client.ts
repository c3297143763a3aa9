// The web app's GraphQL client in its smallest form: it sends a typed operation with a bearer
// token and answers with the operation's typed result. tsc --strict checks app.ts against the
// types graphql-codegen made from the operations, so a schema change that breaks the web app
// breaks this build.
import type { TypedDocumentNode } from '@graphql-typed-document-node/core';
import { print } from 'graphql';

/** A GraphQL error as Herdbook sends it: extensions.code is one of a fixed set. */
export interface GraphQLError {
  message: string;
  path?: ReadonlyArray<string | number>;
  extensions?: { code?: string; fields?: Array<{ field: string; message: string }> };
}

/** An answer with errors: the first error's code says what went wrong. */
export class OperationError extends Error {
  constructor(readonly errors: ReadonlyArray<GraphQLError>) {
    super(errors.map((e) => e.message).join('; '));
  }

  get code(): string | undefined {
    return this.errors[0]?.extensions?.code;
  }
}

/** run sends an operation to the endpoint and returns its data, or throws its errors. */
export async function run<Result, Variables extends Record<string, unknown>>(
  endpoint: string,
  token: string,
  document: TypedDocumentNode<Result, Variables>,
  variables: Variables,
): Promise<Result> {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
    body: JSON.stringify({ query: print(document), variables }),
  });
  const body = (await response.json()) as { data?: Result | null; errors?: GraphQLError[] };
  if (body.errors?.length) {
    throw new OperationError(body.errors);
  }
  if (body.data == null) {
    throw new OperationError([{ message: `HTTP ${response.status} without data` }]);
  }
  return body.data;
}
