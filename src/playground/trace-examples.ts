/**
 * The traces the playground's trace panel offers, per binding: copies of corpus traces
 * (properties/corpus/NAME.jsonl), embedded because the page runs in the browser without the
 * files. properties/playground/trace-panel.test.ts fails when a copy differs from its file.
 */

/** One example trace. */
export interface TraceExample {
  /** The corpus file's name, without `.jsonl`. */
  name: string;
  /** The binding it is read under. */
  binding: 'mcp-sse' | 'mcp-tasks' | 'a2a';
  /** What it shows, in a few words. */
  title: string;
  /** The trace, JSON lines. */
  text: string;
}

export const TRACE_EXAMPLES: readonly TraceExample[] = [
  {
    name: 'rule6-successor-resumed',
    binding: 'mcp-sse',
    title: 'resumed: the first event is the cursor’s successor',
    text: '{"type":"open","status":200,"epoch":"e1"}\n{"type":"event","id":1}\n{"type":"event","id":2}\n{"type":"event","id":3}\n{"type":"event","id":4}\n{"type":"event","id":5}\n{"type":"idle-timeout"}\n{"type":"reconnect","cursor":5}\n{"type":"response","status":200,"epoch":"e1","durable":true}\n{"type":"keepalive"}\n{"type":"event","id":6}\n{"type":"event","id":7}\n{"type":"event","id":8}\n{"type":"event","id":9}\n{"type":"decision","outcome":"resumed"}\n{"type":"end"}\n',
  },
  {
    name: 'rule6-skip',
    binding: 'mcp-sse',
    title: 'a skip caught: 200, then id 9 after cursor 5',
    text: '{"type":"open","status":200,"epoch":"e1"}\n{"type":"event","id":1}\n{"type":"event","id":2}\n{"type":"event","id":3}\n{"type":"event","id":4}\n{"type":"event","id":5}\n{"type":"idle-timeout"}\n{"type":"reconnect","cursor":5}\n{"type":"response","status":200}\n{"type":"event","id":9}\n{"type":"decision","outcome":"resumption-failed"}\n',
  },
  {
    name: 'seed-head-resume-accepted',
    binding: 'mcp-sse',
    title: 'the seed’s incident: a head resume accepted',
    text: '{"type":"open","status":200,"epoch":"e1"}\n{"type":"event","id":1}\n{"type":"event","id":2}\n{"type":"event","id":3}\n{"type":"event","id":4}\n{"type":"event","id":5}\n{"type":"event","id":6}\n{"type":"event","id":7}\n{"type":"event","id":8}\n{"type":"event","id":9}\n{"type":"event","id":10}\n{"type":"event","id":11}\n{"type":"event","id":12}\n{"type":"event","id":13}\n{"type":"event","id":14}\n{"type":"event","id":15}\n{"type":"event","id":16}\n{"type":"event","id":17}\n{"type":"event","id":18}\n{"type":"event","id":19}\n{"type":"event","id":20}\n{"type":"event","id":21}\n{"type":"event","id":22}\n{"type":"event","id":23}\n{"type":"event","id":24}\n{"type":"event","id":25}\n{"type":"event","id":26}\n{"type":"event","id":27}\n{"type":"event","id":28}\n{"type":"event","id":29}\n{"type":"event","id":30}\n{"type":"event","id":31}\n{"type":"event","id":32}\n{"type":"event","id":33}\n{"type":"event","id":34}\n{"type":"event","id":35}\n{"type":"event","id":36}\n{"type":"event","id":37}\n{"type":"event","id":38}\n{"type":"event","id":39}\n{"type":"event","id":40}\n{"type":"event","id":41}\n{"type":"idle-timeout"}\n{"type":"reconnect","cursor":41}\n{"type":"response","status":200}\n{"type":"event","id":130}\n{"type":"decision","outcome":"resumed"}\n{"type":"event","id":131}\n{"type":"event","id":132}\n{"type":"event","id":133}\n',
  },
  {
    name: 'poll-then-skip',
    binding: 'mcp-sse',
    title: 'polling: an empty poll, then a skip',
    text: '{"type":"open","status":200,"epoch":"e1"}\n{"type":"event","id":1,"data":""}\n{"type":"event","id":2}\n{"type":"end"}\n{"type":"reconnect","cursor":2}\n{"type":"response","status":200}\n{"type":"end"}\n{"type":"decision","outcome":"delayed"}\n{"type":"reconnect","cursor":2}\n{"type":"response","status":200}\n{"type":"event","id":9}\n{"type":"decision","outcome":"resumed"}\n',
  },
  {
    name: 'rule2-session-lost-404',
    binding: 'mcp-sse',
    title: 'session lost: 404',
    text: '{"type":"open","status":200,"epoch":"e1"}\n{"type":"event","id":1}\n{"type":"event","id":2}\n{"type":"event","id":3}\n{"type":"event","id":4}\n{"type":"event","id":5}\n{"type":"idle-timeout"}\n{"type":"reconnect","cursor":5}\n{"type":"response","status":404}\n{"type":"decision","outcome":"session-lost"}\n',
  },
  {
    name: 'tasks-clean-resume',
    binding: 'mcp-tasks',
    title: 'a clean resume: seq after + 1',
    text: '{"type":"binding","name":"mcp-tasks"}\n{"type":"tasks/stream","taskId":"task-123"}\n{"type":"tasks/event","taskId":"task-123","seq":0,"eventType":"com.example.step","payload":{"n":0}}\n{"type":"tasks/event","taskId":"task-123","seq":1}\n{"type":"disconnect"}\n{"type":"tasks/stream","taskId":"task-123","after":1}\n{"type":"tasks/event","taskId":"task-123","seq":2}\n{"type":"tasks/event","taskId":"task-123","seq":3}\n{"type":"decision","outcome":"resumed"}\n{"type":"tasks/result"}\n',
  },
  {
    name: 'tasks-skip',
    binding: 'mcp-tasks',
    title: 'a skip accepted: seq 8 after 5',
    text: '{"type":"binding","name":"mcp-tasks"}\n{"type":"tasks/stream","taskId":"task-123"}\n{"type":"tasks/event","taskId":"task-123","seq":0}\n{"type":"tasks/event","taskId":"task-123","seq":1}\n{"type":"tasks/event","taskId":"task-123","seq":2}\n{"type":"tasks/event","taskId":"task-123","seq":3}\n{"type":"tasks/event","taskId":"task-123","seq":4}\n{"type":"tasks/event","taskId":"task-123","seq":5}\n{"type":"disconnect"}\n{"type":"tasks/stream","taskId":"task-123","after":5}\n{"type":"tasks/event","taskId":"task-123","seq":8}\n{"type":"decision","outcome":"resumed"}\n',
  },
  {
    name: 'tasks-events-gone-410',
    binding: 'mcp-tasks',
    title: 'events_gone as HTTP 410: resumption-failed, not session-lost',
    text: '{"type":"binding","name":"mcp-tasks"}\n{"type":"tasks/stream","taskId":"task-123"}\n{"type":"tasks/event","taskId":"task-123","seq":0}\n{"type":"tasks/event","taskId":"task-123","seq":1}\n{"type":"tasks/event","taskId":"task-123","seq":2}\n{"type":"tasks/event","taskId":"task-123","seq":3}\n{"type":"tasks/event","taskId":"task-123","seq":4}\n{"type":"tasks/event","taskId":"task-123","seq":5}\n{"type":"disconnect"}\n{"type":"tasks/stream","taskId":"task-123","after":5}\n{"type":"tasks/error","status":410,"error":{"code":-32010,"message":"Task events are no longer available","data":{"reason":"events_gone","taskId":"task-123","earliestSeq":100}}}\n{"type":"decision","outcome":"session-lost"}\n',
  },
  {
    name: 'tasks-duplicates-then-successor',
    binding: 'mcp-tasks',
    title: 'duplicates, then the successor',
    text: '{"type":"binding","name":"mcp-tasks"}\n{"type":"tasks/stream","taskId":"task-123"}\n{"type":"tasks/event","taskId":"task-123","seq":0}\n{"type":"tasks/event","taskId":"task-123","seq":1}\n{"type":"tasks/event","taskId":"task-123","seq":2}\n{"type":"tasks/event","taskId":"task-123","seq":3}\n{"type":"tasks/event","taskId":"task-123","seq":4}\n{"type":"tasks/event","taskId":"task-123","seq":5}\n{"type":"disconnect"}\n{"type":"tasks/stream","taskId":"task-123","after":5}\n{"type":"tasks/event","taskId":"task-123","seq":3}\n{"type":"tasks/event","taskId":"task-123","seq":4}\n{"type":"tasks/event","taskId":"task-123","seq":5}\n{"type":"tasks/event","taskId":"task-123","seq":6}\n{"type":"tasks/event","taskId":"task-123","seq":7}\n{"type":"decision","outcome":"resumed"}\n',
  },
  {
    name: 'tasks-duplicates-forever',
    binding: 'mcp-tasks',
    title: 'duplicates for ever: the proof budget runs out',
    text: '{"type":"binding","name":"mcp-tasks","proofBudget":3000}\n{"type":"tasks/stream","taskId":"task-123","t":0}\n{"type":"tasks/event","taskId":"task-123","seq":0,"t":100}\n{"type":"tasks/event","taskId":"task-123","seq":1,"t":200}\n{"type":"tasks/event","taskId":"task-123","seq":2,"t":300}\n{"type":"tasks/event","taskId":"task-123","seq":3,"t":400}\n{"type":"tasks/event","taskId":"task-123","seq":4,"t":500}\n{"type":"tasks/event","taskId":"task-123","seq":5,"t":600}\n{"type":"disconnect","t":700}\n{"type":"tasks/stream","taskId":"task-123","after":5,"t":1000}\n{"type":"tasks/event","taskId":"task-123","seq":0,"t":1500}\n{"type":"tasks/event","taskId":"task-123","seq":1,"t":2000}\n{"type":"tasks/event","taskId":"task-123","seq":2,"t":2500}\n{"type":"tasks/event","taskId":"task-123","seq":3,"t":3000}\n{"type":"tasks/event","taskId":"task-123","seq":4,"t":3500}\n{"type":"tasks/event","taskId":"task-123","seq":5,"t":4000}\n{"type":"tasks/event","taskId":"task-123","seq":0,"t":4500}\n{"type":"tasks/event","taskId":"task-123","seq":1,"t":5000}\n{"type":"tasks/event","taskId":"task-123","seq":2,"t":5500}\n{"type":"tasks/event","taskId":"task-123","seq":3,"t":6000}\n{"type":"tasks/event","taskId":"task-123","seq":4,"t":6500}\n{"type":"tasks/event","taskId":"task-123","seq":5,"t":7000}\n{"type":"tasks/event","taskId":"task-123","seq":0,"t":7500}\n{"type":"tasks/event","taskId":"task-123","seq":1,"t":8000}\n{"type":"decision","outcome":"delayed","t":8500}\n',
  },
  {
    name: 'tasks-missing-after',
    binding: 'mcp-tasks',
    title: 'a call without after, once events were seen',
    text: '{"type":"binding","name":"mcp-tasks"}\n{"type":"tasks/stream","taskId":"task-123"}\n{"type":"tasks/event","taskId":"task-123","seq":0}\n{"type":"tasks/event","taskId":"task-123","seq":1}\n{"type":"tasks/event","taskId":"task-123","seq":2}\n{"type":"tasks/event","taskId":"task-123","seq":3}\n{"type":"disconnect"}\n{"type":"tasks/stream","taskId":"task-123"}\n{"type":"tasks/event","taskId":"task-123","seq":6}\n{"type":"tasks/event","taskId":"task-123","seq":7}\n{"type":"decision","outcome":"resumed"}\n',
  },
  {
    name: 'a2a-p5-seam-loss-1.0',
    binding: 'a2a',
    title: 'A2A 1.0: a resume with no cursor accepted',
    text: '{"type":"binding","name":"a2a","era":"1.0","comment":"P5 as observed with A2A 1.0 (JS SDK 1.3.0): the same seam loss with no generation; the client cannot detect it and accepts; the oracle fails the resume at rule 0"}\n{"type":"a2a/send","taskId":"T"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"T","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"}}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e1","role":"ROLE_AGENT","parts":[{"text":"e1"}]}}}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e2;"}]},"append":false}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e3","role":"ROLE_AGENT","parts":[{"text":"e3"}]}}}}}}\n{"type":"disconnect"}\n{"type":"a2a/subscribe","taskId":"T"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING"}}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e7","role":"ROLE_AGENT","parts":[{"text":"e7"}]}}}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e8;"}]},"append":true}}}}\n{"type":"decision","outcome":"resumed"}\n{"type":"a2a/end"}\n',
  },
  {
    name: 'a2a-ce1-seam-loss',
    binding: 'a2a',
    title: 'dev-1.1: updates folded into the snapshot, then a gap',
    text: '{"type":"binding","name":"a2a","era":"dev-1.1","comment":"CE1 / P5: write latency 200 ms; e6 (generation 7) was published before the tap attached and persisted after the snapshot read: in neither; the snapshot (generation 6) folds e4, e5: cursor-below-floor; after re-sync the next update is 8, not 7: a break; the client accepted"}\n{"type":"a2a/send","taskId":"T"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"T","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"},"generation":1}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e1","role":"ROLE_AGENT","parts":[{"text":"e1"}]}},"generation":2}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e2;"}]},"append":false,"generation":3}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e3","role":"ROLE_AGENT","parts":[{"text":"e3"}]}},"generation":4}}}}\n{"type":"disconnect"}\n{"type":"a2a/subscribe","taskId":"T"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING"},"generation":6}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e7","role":"ROLE_AGENT","parts":[{"text":"e7"}]}},"generation":8}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e8;"}]},"append":true,"generation":9}}}}\n{"type":"decision","outcome":"resumed"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e9","role":"ROLE_AGENT","parts":[{"text":"e9"}]}},"generation":10}}}}\n{"type":"a2a/end"}\n',
  },
  {
    name: 'a2a-ce2-seam-duplicate',
    binding: 'a2a',
    title: 'dev-1.1: a duplicate at the seam dropped, a later gap seen',
    text: '{"type":"binding","name":"a2a","era":"dev-1.1","comment":"CE2 / P7: a slow snapshot read; the snapshot (generation 5) already folds e4, which the live tap sends again (generation 5): cursor-below-floor, then after re-sync the repeat is dropped as a duplicate; a later gap (7 to 9) is still seen. The spec\'s fallback (two identical consecutive generations: stop using generation) would miss it"}\n{"type":"a2a/send","taskId":"T"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"T","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"},"generation":1}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e1","role":"ROLE_AGENT","parts":[{"text":"e1"}]}},"generation":2}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e2;"}]},"append":false,"generation":3}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e3","role":"ROLE_AGENT","parts":[{"text":"e3"}]}},"generation":4}}}}\n{"type":"disconnect"}\n{"type":"a2a/subscribe","taskId":"T"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING"},"generation":5}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e4;"}]},"append":true,"generation":5}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e5","role":"ROLE_AGENT","parts":[{"text":"e5"}]}},"generation":6}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e6;"}]},"append":true,"generation":7}}}}\n{"type":"decision","outcome":"resumption-failed"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e8;"}]},"append":true,"generation":9}}}}\n{"type":"a2a/end"}\n',
  },
  {
    name: 'a2a-p3-task-not-found-http-200',
    binding: 'a2a',
    title: 'TaskNotFound sent with HTTP 200: session-lost',
    text: '{"type":"binding","name":"a2a","era":"dev-1.1","comment":"P3 / CE5 in-memory restart: TaskNotFoundError -32001 sent with HTTP 200 (JS SDK 1.3.0); classified on the JSON-RPC body: session-lost"}\n{"type":"a2a/send","taskId":"T"}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"task":{"id":"T","contextId":"c1","status":{"state":"TASK_STATE_SUBMITTED"},"generation":1}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e1","role":"ROLE_AGENT","parts":[{"text":"e1"}]}},"generation":2}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"artifactUpdate":{"taskId":"T","contextId":"c1","artifact":{"artifactId":"out","parts":[{"text":"e2;"}]},"append":false,"generation":3}}}}\n{"type":"a2a/frame","data":{"jsonrpc":"2.0","id":1,"result":{"statusUpdate":{"taskId":"T","contextId":"c1","status":{"state":"TASK_STATE_WORKING","message":{"messageId":"e3","role":"ROLE_AGENT","parts":[{"text":"e3"}]}},"generation":4}}}}\n{"type":"disconnect"}\n{"type":"a2a/subscribe","taskId":"T"}\n{"type":"a2a/error","status":200,"error":{"code":-32001,"message":"Task not found: T"}}\n{"type":"decision","outcome":"session-lost"}\n',
  },
];
