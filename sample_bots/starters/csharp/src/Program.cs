using System;
using System.IO;
using System.Text;

namespace Pinochle
{
    /// <summary>
    /// The entry point: reads the referee's lines from stdin, keeps the game model
    /// up to date and answers requests. You rarely need to change this file; your
    /// thinking goes in <see cref="Strategy.Choose"/>.
    ///
    /// Stdout carries protocol lines only. Anything else (debugging) goes to
    /// stderr, which the referee saves to a log file: use <see cref="Log"/>.
    /// </summary>
    public static class Program
    {
        const string Name = "csharp-starter";
        const string Author = "pinochle-arena starter kits";

        static TextWriter output;
        static readonly Game game = new Game();
        static readonly Strategy strategy = new Strategy();

        public static int Main()
        {
            var utf8 = new UTF8Encoding(false);  // no byte-order mark
            // Keep the real stdout for protocol lines, and send any stray
            // Console.WriteLine (yours or a library's) to stderr instead, where it
            // cannot break the protocol.
            output = new StreamWriter(Console.OpenStandardOutput(), utf8) { NewLine = "\n", AutoFlush = false };
            Console.SetOut(Console.Error);
            var input = new StreamReader(Console.OpenStandardInput(), utf8);

            string line;
            while ((line = input.ReadLine()) != null)  // ReadLine drops "\n" and "\r\n"
            {
                if (line.Trim().Length == 0) continue;
                Message message = Message.Parse(line);
                if (message is Hello) Handshake();
                else if (message is Ping ping) Send("pong " + ping.Token);
                else if (message is Quit) return 0;
                else if (message is Go request)
                {
                    LegalAction choice = Answer(request);
                    Send(choice.Token);
                    game.Replied(choice);
                }
                else if (message is SetOption option) Log($"option {option.Name} = {option.Value}");  // read your declared options here
                else if (message is ErrorNotice error) Log("the referee refused our action: " + error.Text);
                else if (message is Unknown) { }  // not a message this kit knows: ignore it (forward compatibility)
                else game.Apply(message);
            }
            return 0;
        }

        /// <summary>The reply to "pinochle 3".</summary>
        static void Handshake()
        {
            Send("id name " + Name);
            Send("id author " + Author);
            Send("protocol 3");
            // Declare options here if you want the organiser to set them, e.g.
            //   Send("option depth int 4 1 12");
            // and read their values from the "setoption" lines that follow "ready".
            Send("want state");
            Send("ready");
        }

        /// <summary>Asks the strategy, and makes sure the reply is one of the offered actions.</summary>
        static LegalAction Answer(Go request)
        {
            if (request.Legal.Count == 0)  // never happens: the referee always lists the legal actions
            {
                Log("request without actions");
                return new LegalAction("pass");
            }
            try
            {
                LegalAction choice = strategy.Choose(request, game);
                if (choice != null && request.Legal.Contains(choice)) return choice;
                Log($"strategy chose {choice}, which was not offered; playing the first offered action");
            }
            catch (Exception bug)
            {
                Log("strategy failed: " + bug);
            }
            return Strategy.FirstOffered(request.Legal);
        }

        /// <summary>Writes one protocol line and flushes it at once.</summary>
        static void Send(string line)
        {
            output.Write(line);
            output.Write('\n');
            output.Flush();
        }

        /// <summary>Debugging output: goes to stderr, never to the referee.</summary>
        public static void Log(string text) => Console.Error.WriteLine($"[{Name}] {text}");
    }
}
