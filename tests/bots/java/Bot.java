// The smallest Java bot: the first legal action. Started as a stranger would start one, with a plain
// 'java -jar bot.jar' and no heap flags (tests/test_runtimes.py).
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;

public class Bot {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        PrintStream out = System.out;
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            switch (words[0]) {
                case "pinochle" -> { out.println("id name java-first-legal"); out.println("ready"); out.flush(); }
                case "go" -> {
                    String choice = words[4];
                    if (choice.contains("..")) choice = choice.substring(0, choice.indexOf(".."));
                    out.println(choice);
                    out.flush();
                }
                case "ping" -> { out.println("pong " + words[1]); out.flush(); }
                case "quit" -> { return; }
                default -> { }
            }
        }
    }
}
