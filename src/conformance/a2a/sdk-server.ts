/**
 * An `@a2a-js/sdk` server for the A2A rows: the SDK's `DefaultRequestHandler` behind its own
 * Express JSON-RPC handler (`jsonRpcHandler`), on 127.0.0.1, with an agent the kit drives. The
 * agent publishes, for each task, a `Task` (SUBMITTED), then one event per {@link ScriptedAgent.emit}:
 * e<k> with k odd is a status update WORKING whose message says `e<k>`; k even an artifact chunk
 * `e<k>;` of the artifact `out` (appended from e4 on); and {@link ScriptedAgent.complete} the
 * status COMPLETED, after which the executor returns. Nothing is timed: the scenario says when
 * each event is published, relative to what the client and the store have done.
 */
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import express from 'express';
import { TaskState, Role } from '@a2a-js/sdk';
import type { AgentCard } from '@a2a-js/sdk';
import {
  AgentEvent,
  DefaultRequestHandler,
  type AgentExecutor,
  type ExecutionEventBus,
} from '@a2a-js/sdk/server';
import { jsonRpcHandler } from '@a2a-js/sdk/server/express';
import { listenLoopback } from '../adapters/listen.js';
import type { KitTaskStore } from './store.js';

/** The version of `@a2a-js/sdk` the rows are pinned to (package.json's devDependency). */
export const A2A_SDK_VERSION = '1.3.0';

/** What the agent publishes, as the kit numbers it. */
export interface EmittedEvent {
  k: number;
  kind: 'status' | 'artifact';
  /** The status message's text (`e<k>`) or the artifact chunk (`e<k>;`). */
  text: string;
  terminal: boolean;
}

interface Running {
  taskId: string;
  contextId: string;
  bus: ExecutionEventBus;
  done: () => void;
}

/** The kit's agent: one task at a time, its events published when the scenario says. */
export class ScriptedAgent implements AgentExecutor {
  readonly emitted: EmittedEvent[] = [];
  private running: Running | undefined;
  private started: ((r: Running) => void) | undefined;

  /** Resolves once a task was created (its `Task` event published). */
  whenStarted(): Promise<{ taskId: string }> {
    if (this.running) return Promise.resolve(this.running);
    return new Promise((r) => (this.started = r));
  }

  execute: AgentExecutor['execute'] = async (ctx, bus) => {
    bus.publish(
      AgentEvent.task({
        id: ctx.taskId,
        contextId: ctx.contextId,
        status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: undefined },
        history: [ctx.userMessage],
        artifacts: [],
        metadata: {},
      }),
    );
    await new Promise<void>((done) => {
      this.running = { taskId: ctx.taskId, contextId: ctx.contextId, bus, done };
      this.started?.(this.running);
    });
  };

  cancelTask: AgentExecutor['cancelTask'] = async () => {};

  /** Publishes e<k> (see the module's text); synchronous: the bus hands it out at once. */
  emit(k: number): EmittedEvent {
    const r = this.need();
    const status = k % 2 === 1;
    const text = status ? `e${k}` : `e${k};`;
    if (status) {
      r.bus.publish(
        AgentEvent.statusUpdate({
          taskId: r.taskId,
          contextId: r.contextId,
          status: {
            state: TaskState.TASK_STATE_WORKING,
            message: agentMessage(`m-e${k}`, text),
            timestamp: undefined,
          },
          metadata: undefined,
        }),
      );
    } else {
      r.bus.publish(
        AgentEvent.artifactUpdate({
          taskId: r.taskId,
          contextId: r.contextId,
          artifact: {
            artifactId: 'out',
            name: 'out',
            description: '',
            parts: [textPart(text)],
            metadata: undefined,
            extensions: [],
          },
          append: k > 2,
          lastChunk: false,
          metadata: undefined,
        }),
      );
    }
    const e: EmittedEvent = { k, kind: status ? 'status' : 'artifact', text, terminal: false };
    this.emitted.push(e);
    return e;
  }

  /** Publishes e<k>: the status COMPLETED (message `e<k>`); the executor then returns. */
  complete(k: number): EmittedEvent {
    const r = this.need();
    r.bus.publish(
      AgentEvent.statusUpdate({
        taskId: r.taskId,
        contextId: r.contextId,
        status: {
          state: TaskState.TASK_STATE_COMPLETED,
          message: agentMessage(`m-e${k}`, `e${k}`),
          timestamp: undefined,
        },
        metadata: undefined,
      }),
    );
    const e: EmittedEvent = { k, kind: 'status', text: `e${k}`, terminal: true };
    this.emitted.push(e);
    r.bus.finished();
    r.done();
    this.running = undefined;
    return e;
  }

  /** Ends a task left running (a cell that failed midway): its bus finishes, its executor returns. */
  stop(): void {
    const r = this.running;
    this.running = undefined;
    r?.bus.finished();
    r?.done();
  }

  private need(): Running {
    if (!this.running) throw new Error('the agent has no running task');
    return this.running;
  }
}

function textPart(text: string) {
  return {
    content: { $case: 'text' as const, value: text },
    metadata: undefined,
    filename: '',
    mediaType: '',
  };
}

function agentMessage(messageId: string, text: string) {
  return {
    messageId,
    contextId: '',
    taskId: '',
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** A running SDK server: its JSON-RPC URL, its agent and store, and how to stop it. */
export interface A2aSdkServer {
  url: string;
  agent: ScriptedAgent;
  store: KitTaskStore;
  close(): Promise<void>;
}

/** Starts an `@a2a-js/sdk` JSON-RPC server on 127.0.0.1 with the kit's agent and `store`. */
export async function startSdkServer(store: KitTaskStore): Promise<A2aSdkServer> {
  const agent = new ScriptedAgent();
  const card = {
    name: 'mcp-resumption A2A conformance agent',
    description: 'publishes the events the conformance kit asks for',
    version: '1',
    supportedInterfaces: [
      { url: 'http://127.0.0.1/', protocolBinding: 'JSONRPC', protocolVersion: '1.0', tenant: '' },
    ],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
  const handler = new DefaultRequestHandler(card, store, agent);
  const app = express();
  app.use(
    '/',
    jsonRpcHandler({
      requestHandler: handler,
      userBuilder: async () => ({ isAuthenticated: false, userName: '' }),
    }),
  );
  const server: Server = createServer(app);
  const sockets = new Set<Socket>();
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const port = await listenLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/`,
    agent,
    store,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
