// Package ratelimit implements the fixed-window rate limiter that guards
// Herdbook's HTTP API.
//
// A [Limiter] allows at most Limit requests per key in each window of a
// fixed length, for example 30 requests per 15 minutes per client IP on
// POST /oauth/device. Windows are aligned to the Unix epoch, so every API
// node computes the same window boundaries from its own clock and a key's
// budget resets for everybody at the same instant.
//
// Counters live in a [Store]. [MemoryStore] keeps them in process memory,
// which is right for a single node and for tests; [RedisStore] keeps them in
// Redis so that several API nodes share one budget per key.
//
// [Limiter.Middleware] wraps an http.Handler, sets the RateLimit-* response
// headers on every response it limits and hands over-limit requests to a
// caller-supplied handler, which writes the API's own 429 error envelope.
// [ClientIP] derives the client address used as the default key, honouring
// X-Forwarded-For only when the request arrives from a trusted proxy.
package ratelimit
