package herdbook

// One `go generate ./...` regenerates everything: the ent data model (and graph/ent.graphqls),
// then the GraphQL executor and models.
//go:generate go -C ent run -mod=mod entc.go
//go:generate go run -mod=mod github.com/99designs/gqlgen generate
