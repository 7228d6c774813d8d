// Package topics is the one place that names the log's topics and builds the
// franz-go clients that read and write them, for the embedded broker and for
// a real Kafka cluster alike.
package topics

const (
	// Traces carries every trace and decision record (schemas.Envelope),
	// keyed org_id/request_id.
	Traces = "gateway.traces.v1"
	// DeadLetter carries records a processor could not decode or validate,
	// with the reason in the "error" header; they never block a partition.
	DeadLetter = "gateway.deadletter.v1"

	// TraceWriterGroup is the consumer group of the processors.
	TraceWriterGroup = "trace-writer"
)
