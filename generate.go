package herdbook

// One `go generate ./...` regenerates everything: the ent data model (and graph/ent.graphqls),
// then the GraphQL executor and models, then the schema file the web app's code generator
// reads (web/contract/schema.graphql).
//go:generate go -C ent run -mod=mod entc.go
//go:generate go run -mod=mod github.com/99designs/gqlgen generate
//go:generate go run ./internal/schemagen web/contract/schema.graphql
