package pinochle;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * The entry point: reads the referee's lines from stdin, keeps the game
 * model up to date and answers requests. You rarely need to change this file;
 * your thinking goes in {@link Strategy#choose}.
 *
 * <p>Stdout carries protocol lines only. Anything else (debugging) goes to
 * stderr, which the referee saves to a log file: use {@link #log}.
 */
public final class Main {

    private static final String NAME = "java-starter";
    private static final String AUTHOR = "pinochle-arena starter kits";

    private final PrintWriter out;
    private final Game game = new Game();
    private final Strategy strategy = new Strategy();

    private Main(PrintWriter out) {
        this.out = out;
    }

    public static void main(String[] args) throws IOException {
        // Keep the real stdout for protocol lines, and send any stray
        // System.out.println (yours or a library's) to stderr instead, where it
        // cannot break the protocol.
        PrintWriter protocolOut = new PrintWriter(
                new OutputStreamWriter(new java.io.FileOutputStream(java.io.FileDescriptor.out), StandardCharsets.UTF_8));
        System.setOut(new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.err), true, StandardCharsets.UTF_8));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        new Main(protocolOut).run(in);
    }

    private void run(BufferedReader in) throws IOException {
        String line;
        while ((line = in.readLine()) != null) {  // readLine drops "\n" and "\r\n"
            if (line.isBlank()) continue;
            Message message = Message.parse(line);
            if (message instanceof Message.Hello) {
                handshake();
            } else if (message instanceof Message.Ping ping) {
                send("pong " + ping.token());
            } else if (message instanceof Message.Quit) {
                return;
            } else if (message instanceof Message.Go request) {
                Action choice = answer(request);
                send(choice.token());
                game.replied(choice);
            } else if (message instanceof Message.SetOption option) {
                log("option " + option.name() + " = " + option.value());  // read your declared options here
            } else if (message instanceof Message.ErrorNotice error) {
                log("the referee refused our action: " + error.text());
            } else if (message instanceof Message.Unknown) {
                // Not a message this kit knows: ignore it (forward compatibility).
            } else {
                game.apply(message);
            }
        }
    }

    /** The reply to "pinochle 3". */
    private void handshake() {
        send("id name " + NAME);
        send("id author " + AUTHOR);
        send("protocol 3");
        // Declare options here if you want the organiser to set them, e.g.
        //   send("option depth int 4 1 12");
        // and read their values from the "setoption" lines that follow "ready".
        send("want state");
        send("ready");
    }

    /** Asks the strategy, and makes sure the reply is one of the offered actions. */
    private Action answer(Message.Go request) {
        if (request.legal().isEmpty()) {  // never happens: the referee always lists the legal actions
            log("request without actions: " + request);
            return new Action("pass", null);
        }
        try {
            Action choice = strategy.choose(request, game);
            if (choice != null && request.legal().contains(choice)) return choice;
            log("strategy chose " + choice + ", which was not offered; playing the first offered action");
        } catch (RuntimeException bug) {
            log("strategy failed: " + bug);
            bug.printStackTrace();
        }
        return Strategy.firstOffered(request.legal());
    }

    /** Writes one protocol line and flushes it at once. */
    private void send(String line) {
        out.print(line);
        out.print('\n');
        out.flush();
    }

    /** Debugging output: goes to stderr, never to the referee. */
    static void log(String text) {
        System.err.println("[" + NAME + "] " + text);
    }
}
