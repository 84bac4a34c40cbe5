// An adapter written with Temporal's Go SDK, serving the custom function operation
// "stock.Count" on its own task queue: what a CWM-style activity in any Temporal language looks
// like to swflow.
//
// Its input is the function's evaluated arguments (a JSON object); the call's context (function,
// workflow, state, action, secret-argument expressions) is the JSON of the "swflow-call" header,
// read here by an activity interceptor. A failure's error type is the code a definition's
// errors[].code matches.
//
//	go run . -address localhost:7233 -task-queue stock
package main

import (
	"context"
	"flag"
	"fmt"
	"log"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/interceptor"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
)

// callContext is the part of swflow's "swflow-call" header this adapter uses.
type callContext struct {
	State    string `json:"state"`
	Action   string `json:"action"`
	Function struct {
		Name      string `json:"name"`
		Operation string `json:"operation"`
	} `json:"function"`
	Workflow struct {
		ID           string `json:"id"`
		DefinitionID string `json:"definitionId"`
	} `json:"workflow"`
}

type callKey struct{}

type callInterceptor struct {
	interceptor.WorkerInterceptorBase
}

func (*callInterceptor) InterceptActivity(ctx context.Context, next interceptor.ActivityInboundInterceptor) interceptor.ActivityInboundInterceptor {
	i := &callInbound{}
	i.Next = next
	return i
}

type callInbound struct {
	interceptor.ActivityInboundInterceptorBase
}

func (c *callInbound) ExecuteActivity(ctx context.Context, in *interceptor.ExecuteActivityInput) (interface{}, error) {
	if p, ok := interceptor.Header(ctx)["swflow-call"]; ok {
		var call callContext
		if err := converter.GetDefaultDataConverter().FromPayload(p, &call); err == nil {
			ctx = context.WithValue(ctx, callKey{}, call)
		}
	}
	return c.Next.ExecuteActivity(ctx, in)
}

// Count counts the items it is given.
func Count(ctx context.Context, args map[string]interface{}) (map[string]interface{}, error) {
	call, _ := ctx.Value(callKey{}).(callContext)
	items, _ := args["items"].([]interface{})
	if len(items) == 0 {
		return nil, temporal.NewNonRetryableApplicationError(fmt.Sprintf("nothing to count in state %q", call.State), "EmptyList", nil,
			map[string]string{"code": "EmptyList", "message": "nothing to count"})
	}
	return map[string]interface{}{
		"count":     len(items),
		"by":        "go",
		"state":     call.State,
		"action":    call.Action,
		"function":  call.Function.Name,
		"taskQueue": activity.GetInfo(ctx).TaskQueue,
	}, nil
}

func main() {
	address := flag.String("address", "localhost:7233", "Temporal server")
	namespace := flag.String("namespace", "default", "namespace")
	queue := flag.String("task-queue", "stock", "task queue (the functions' metadata.worker)")
	flag.Parse()
	c, err := client.Dial(client.Options{HostPort: *address, Namespace: *namespace})
	if err != nil {
		log.Fatalf("cannot reach Temporal at %s: %v", *address, err)
	}
	defer c.Close()
	w := worker.New(c, *queue, worker.Options{Interceptors: []interceptor.WorkerInterceptor{&callInterceptor{}}})
	w.RegisterActivityWithOptions(Count, activity.RegisterOptions{Name: "stock.Count"})
	log.Printf("serving stock.Count on task queue %s", *queue)
	if err := w.Run(worker.InterruptCh()); err != nil {
		log.Fatal(err)
	}
}
