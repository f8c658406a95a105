"""Who may use Concord: user names, passwords, enrolment by an admin, and signed-in sessions."""
