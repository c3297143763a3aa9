# Shortcuts for developers; CI runs .ci/run.
PG ?= postgres://127.0.0.1:5432/test?sslmode=disable

.PHONY: build run test test-pg generate migration vet bench ci

build: ## build ./herdbook, stamped with the commit (herdbook version shows it; git worktrees get no stamp)
	go build -buildvcs=auto -o herdbook ./cmd/herdbook

run: ## run the server on the embedded SQLite database
	go run ./cmd/herdbook

test: ## the whole test suite on SQLite
	go test ./...

test-pg: ## the whole test suite on SQLite and PostgreSQL
	HERDBOOK_TEST_DATABASE_URL='$(PG)' go test ./...

generate: ## regenerate ent, entgql and gqlgen code
	go generate ./...

migration: ## write a migration for schema changes: make migration NAME=add_something
	@test -n "$(NAME)" || (echo "usage: make migration NAME=add_something" >&2; exit 1)
	go run ./internal/db/migrationgen -dev-url '$(PG)' $(NAME)

vet:
	go vet ./...

bench: ## list benchmarks on SQLite and PostgreSQL
	HERDBOOK_TEST_DATABASE_URL='$(PG)' go test -run '^$$' -bench . -benchtime 2s ./rest/ ./graph/ ./evidence/

ci:
	bash .ci/run
