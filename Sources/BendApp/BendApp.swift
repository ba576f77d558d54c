/// Entry point of the `bendsynth` command (placeholder until the commands land).
public enum BendApp {
    public static func main() {}
}
